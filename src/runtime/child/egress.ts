// Every outbound connection of user code goes through the egress guard: net and tls (and so
// http, https, http2, fetch/undici and WebSocket, which all end in net.Socket#connect) and
// dgram. Literal IPs in any spelling are checked before connecting; names resolve through
// the guarded lookup, which refuses forbidden addresses after resolution. Unix sockets and
// inherited file descriptors are refused outright.
import dgram from "node:dgram";
import net from "node:net";
import { EgressRefusedError, guardedLookup, isForbiddenAddress, normalizeHostLiteral, refusedLiteralHost } from "../../egress/egress-guard.js";

function connectOptions(args: unknown[]): Record<string, any> | undefined {
  const first = args[0];
  if (Array.isArray(first)) return first[0] as Record<string, any>; // net's normalized [options, cb]
  if (first && typeof first === "object") return first as Record<string, any>;
  return undefined;
}

export function installEgressGuard(allowPrivate: boolean): void {
  const lookup = guardedLookup(allowPrivate);
  const connect = net.Socket.prototype.connect as (...args: unknown[]) => net.Socket;

  function refuse(socket: net.Socket, host: string, address?: string): net.Socket {
    process.nextTick(() => socket.destroy(new EgressRefusedError(host, address)));
    return socket;
  }

  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    let options = connectOptions(args);
    if (!options) {
      // connect(port[, host][, cb]) or connect(path[, cb])
      const [portOrPath, host] = args;
      if (typeof portOrPath === "string" && !/^\d+$/.test(portOrPath)) return refuse(this, portOrPath);
      options = { port: portOrPath, host: typeof host === "string" ? host : "localhost" };
      args = [options, ...args.slice(typeof host === "string" ? 2 : 1)];
    }
    if (options.path !== undefined || options.fd !== undefined) return refuse(this, String(options.path ?? options.fd));
    const host = String(options.host ?? "localhost");
    const refused = refusedLiteralHost(host, allowPrivate);
    if (refused) return refuse(this, host, refused.address);
    // Always our lookup: a lookup passed by user code could map any name to a private address.
    Object.defineProperty(options, "lookup", { value: lookup, writable: true, configurable: true, enumerable: true });
    return connect.apply(this, args);
  } as typeof net.Socket.prototype.connect;

  // UDP: only literal, allowed addresses (names are refused unless private egress is allowed,
  // since the address may come from a lookup that user code controls).
  const check = (address: unknown) => {
    if (allowPrivate) return;
    const literal = typeof address === "string" ? normalizeHostLiteral(address) : undefined;
    if (literal === undefined || isForbiddenAddress(literal)) throw new EgressRefusedError(String(address ?? "localhost"), literal);
  };
  const send = dgram.Socket.prototype.send as (...args: unknown[]) => void;
  dgram.Socket.prototype.send = function guardedSend(this: dgram.Socket, ...args: unknown[]) {
    const rest = args.slice(1).filter((a) => typeof a !== "function");
    const address = rest.find((a) => typeof a === "string");
    let connected = false;
    try {
      this.remoteAddress();
      connected = true;
    } catch {
      connected = false;
    }
    if (!connected) check(address);
    return send.apply(this, args);
  } as typeof dgram.Socket.prototype.send;
  const udpConnect = dgram.Socket.prototype.connect as (...args: unknown[]) => void;
  dgram.Socket.prototype.connect = function guardedUdpConnect(this: dgram.Socket, ...args: unknown[]) {
    check(typeof args[1] === "string" ? args[1] : undefined);
    return udpConnect.apply(this, args);
  } as typeof dgram.Socket.prototype.connect;
}
