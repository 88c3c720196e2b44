// TCP connections of user code (net, and so http, https, http2, pg, mysql2, fetch/undici and
// WebSocket, which all end in net.Socket#connect) go through the egress proxy. The literal
// check of the egress guard runs here too, since it costs nothing and refuses before the
// proxy is even asked; the proxy applies the guard to names and is the authority.
import net, { type Socket } from "node:net";
import { domainToASCII } from "node:url";
import { EgressRefusedError, refusedLiteralHost } from "../../egress/egress-guard.js";
import { connectThroughProxy, type ProxyAccess } from "./proxy-handshake.js";
import { proxyUnavailable, systemError } from "./proxy-errors.js";

type ConnectOptions = Record<string, any>;
type NormalizedArgs = [ConnectOptions, (() => void) | null];

const normalizeArgs = (net as unknown as { _normalizeArgs(args: unknown[]): NormalizedArgs })._normalizeArgs;
// Host names and IP literals as getaddrinfo takes them; anything else could not resolve.
const HOST = /^[A-Za-z0-9_.:%-]{1,253}$/;

/**
 * Destroys the socket with `error` once the caller could attach its listeners, as Node does.
 * Meanwhile it counts as connecting, so that writes wait rather than fail with an error of
 * their own that would hide the refusal.
 */
export function refuse(socket: Socket, error: Error): Socket {
  (socket as Socket & { connecting: boolean }).connecting = true;
  process.nextTick(() => socket.destroy(error));
  return socket;
}

function badPort(port: unknown): never {
  const error: NodeJS.ErrnoException = new RangeError(`Port should be >= 0 and < 65536. Received ${String(port)}.`);
  error.code = "ERR_SOCKET_BAD_PORT";
  throw error;
}

function validPort(port: unknown): number {
  if (typeof port === "number" || (typeof port === "string" && port.trim() !== "")) {
    const value = Number(port);
    if (Number.isInteger(value) && value >= 0 && value < 65536) return value;
  }
  return badPort(port);
}

function hostOf(options: ConnectOptions): string | undefined {
  let host = String(options.host ?? "localhost");
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (/[^\x21-\x7e]/.test(host)) host = domainToASCII(host);
  return HOST.test(host) ? host : undefined;
}

function hasOnread(socket: Socket): boolean {
  // The onread option hands data to a callback, around the stream the handshake reads.
  const symbol = Object.getOwnPropertySymbols(socket).find((s) => s.description === "kBuffer");
  return symbol !== undefined && (socket as unknown as Record<symbol, unknown>)[symbol] != null;
}

export function installNetEgress(proxy: ProxyAccess | undefined, allowPrivate: boolean): void {
  net.Socket.prototype.connect = function egressConnect(this: Socket, ...args: unknown[]): Socket {
    const [options, callback] = Array.isArray(args[0]) ? (args[0] as NormalizedArgs) : normalizeArgs(args);
    // Unix sockets and inherited descriptors stay closed to user code.
    if (options.path || options.fd != null) return refuse(this, new EgressRefusedError(String(options.path || options.fd)));
    if (options.port === undefined) {
      const error: NodeJS.ErrnoException = new TypeError('The "options" or "port" or "path" argument must be specified');
      error.code = "ERR_MISSING_ARGS";
      throw error;
    }
    const port = validPort(options.port);
    // A socket with a handle already (one opened on a descriptor, a TLSSocket made by hand)
    // would connect that handle directly.
    if ((this as Socket & { _handle: unknown })._handle && !this.destroyed)
      return refuse(this, new EgressRefusedError("a socket that has a handle already"));
    if (hasOnread(this))
      return refuse(
        this,
        Object.assign(new Error("the onread option of net.connect is not available to user code"), { code: "ERR_ACCESS_DENIED" }),
      );
    const host = hostOf(options);
    if (host === undefined) return refuse(this, systemError("ENOTFOUND", "getaddrinfo", { hostname: String(options.host) }));
    const refused = refusedLiteralHost(host, allowPrivate);
    if (refused) return refuse(this, refused);
    if (!proxy) return refuse(this, proxyUnavailable());
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    return connectThroughProxy(this, { host, port, family }, callback, proxy);
  } as typeof net.Socket.prototype.connect;
}
