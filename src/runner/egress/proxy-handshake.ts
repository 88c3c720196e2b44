// Connects the user's own net.Socket to host:port through the egress proxy, invisibly: the
// socket connects to the proxy's Unix socket, sends `CONNECT host:port` as its very first
// bytes and reads the proxy's reply before user code sees any data. Until the tunnel is open
// the socket stays `connecting`, so writes made meanwhile wait (in order, as Node queues them
// for any connecting socket), and `connect` fires only once the tunnel is open.
//
// How, on Node's net.Socket internals (checked on Node 20): `emit` and `push` are overridden
// on the instance for the handshake only. The `connect` event of the Unix socket is swallowed;
// at that moment the CONNECT request is written with Socket.prototype._writeGeneric (the
// path user writes take once connected; theirs are still queued behind `connect`), and reading
// is started. Data arrives through `push`, which collects the reply; then both are restored,
// the proxy's ack is written and `connect` is emitted, releasing the queued writes.
import { isIP, type Socket } from "node:net";
import net from "node:net";
import { ACK_BYTE, ACK_HEADER, ADDRESS_HEADER, EXECUTION_HEADER, FAMILY_HEADER, PORT_HEADER } from "../../egress/egress-protocol.js";
import { currentExecution } from "./current-execution.js";
import { connectError, parseReplyHead, proxyUnavailable, type ProxyReply } from "./proxy-errors.js";

export interface TunnelTarget {
  host: string;
  port: number;
  family?: 4 | 6;
}

export interface ProxyAccess {
  path: string;
  /** net.Socket.prototype.connect as it was before egress was guarded: only it reaches the proxy. */
  connect: (this: Socket, options: { path: string }) => Socket;
}

type Internals = Socket & {
  _handle: { reading: boolean; readStart(): number } | null;
  _writeGeneric(writev: boolean, data: string, encoding: string, cb: (err?: Error | null) => void): void;
  connecting: boolean;
  push(chunk: Buffer | null): boolean;
};

const MAX_REPLY_BYTES = 16 * 1024;
const ACK = String.fromCharCode(ACK_BYTE);
const writeGeneric = (net.Socket.prototype as Internals)._writeGeneric;
/** Sockets whose tunnel is not open yet (tls.connect must not wrap their handle meanwhile). */
const opening = new WeakSet<Socket>();

export const isOpeningTunnel = (socket: unknown): boolean => opening.has(socket as Socket);

function authority({ host, port }: TunnelTarget): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function ownValue(target: object, name: string): PropertyDescriptor | undefined {
  return Object.getOwnPropertyDescriptor(target, name);
}

function restoreOwn(target: object, name: string, descriptor: PropertyDescriptor | undefined): void {
  if (descriptor) Object.defineProperty(target, name, descriptor);
  else delete (target as Record<string, unknown>)[name];
}

/** The remote end of the tunnel, shown where Node shows the peer of a TCP socket. */
export function showRemote(socket: Socket, reply: ProxyReply): void {
  const port = Number(reply.headers.get(PORT_HEADER));
  const family = reply.headers.get(FAMILY_HEADER) === "6" ? "IPv6" : "IPv4";
  const values = {
    remoteAddress: reply.headers.get(ADDRESS_HEADER),
    remotePort: Number.isInteger(port) ? port : undefined,
    remoteFamily: family,
  };
  for (const [name, value] of Object.entries(values)) Object.defineProperty(socket, name, { value, configurable: true, enumerable: false });
}

export function connectThroughProxy(socket: Socket, target: TunnelTarget, callback: (() => void) | null, proxy: ProxyAccess): Socket {
  const s = socket as Internals;
  if (callback) s.once("connect", callback);
  const ownEmit = ownValue(s, "emit");
  const ownPush = ownValue(s, "push");
  const emit = s.emit as (this: Socket, ...args: unknown[]) => boolean;
  const push = s.push;
  let reachedProxy = false;
  let received: Buffer = Buffer.alloc(0);

  const restore = () => {
    opening.delete(s);
    restoreOwn(s, "emit", ownEmit);
    restoreOwn(s, "push", ownPush);
  };
  const fail = (error: Error) => {
    restore();
    s.destroy(error);
  };

  function requestTunnel(): void {
    const family = target.family ? `${FAMILY_HEADER}: ${target.family}\r\n` : "";
    const id = currentExecution();
    const execution = id !== undefined ? `${EXECUTION_HEADER}: ${id}\r\n` : "";
    const request = `CONNECT ${authority(target)} HTTP/1.1\r\nhost: ${authority(target)}\r\n${ACK_HEADER}: 1\r\n${family}${execution}\r\n`;
    writeGeneric.call(s, false, request, "latin1", (err) => err && fail(err));
    // Back to connecting: user writes keep waiting for the real `connect`.
    s.connecting = true;
    const handle = s._handle;
    if (handle && !handle.reading) {
      handle.reading = true;
      const err = handle.readStart();
      if (err) fail(proxyUnavailable());
    }
  }

  function opened(reply: ProxyReply, rest: Buffer): void {
    showRemote(s, reply);
    s.connecting = false;
    // The server's bytes flow once the proxy has the ack, which goes before any user write;
    // by then `connect` has been emitted, so whoever takes the socket over on it (http2
    // consumes the handle) reads them all.
    writeGeneric.call(s, false, ACK, "latin1", (err) => err && s.destroy(err));
    if (isIP(target.host) === 0) s.emit("lookup", null, s.remoteAddress, s.remoteFamily === "IPv6" ? 6 : 4, target.host);
    s.emit("connect");
    s.emit("ready");
    if (rest.length > 0 && !s.destroyed) push.call(s, rest);
  }

  s.emit = function handshakeEmit(this: Internals, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "connect" && !reachedProxy) {
      reachedProxy = true;
      requestTunnel();
      return true;
    }
    if (event === "ready" || event === "connect") return true;
    // Not reaching the proxy's socket is not the user's target refusing: say which it is.
    if (event === "error" && !reachedProxy && (args[0] as NodeJS.ErrnoException)?.syscall === "connect")
      return emit.call(this, event, proxyUnavailable(args[0]));
    if (event === "close") restore();
    return emit.call(this, event, ...args);
  } as Socket["emit"];

  s.push = function handshakePush(this: Internals, chunk: Buffer | null): boolean {
    if (chunk === null) {
      fail(proxyUnavailable());
      return false;
    }
    received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
    const end = received.indexOf("\r\n\r\n");
    if (end < 0) {
      if (received.length > MAX_REPLY_BYTES) fail(proxyUnavailable());
      return true;
    }
    const reply = parseReplyHead(received.subarray(0, end).toString("latin1"));
    const rest = received.subarray(end + 4);
    restore();
    if (reply?.status !== 200) {
      s.destroy(reply ? connectError(reply, target.host, target.port) : proxyUnavailable());
      return false;
    }
    opened(reply, rest);
    return true;
  };

  opening.add(s);
  proxy.connect.call(s, { path: proxy.path });
  return s;
}
