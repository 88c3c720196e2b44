// TLS connections of user code (tls.connect, and so https, http2 over TLS and fetch to https
// URLs) run over a tunnel through the egress proxy. TLS must not wrap the tunnel's Unix socket
// handle directly, or it would read the proxy's reply as TLS: it gets a Duplex around the
// tunnelled socket instead, which only carries the bytes after the reply.
import { readFileSync } from "node:fs";
import net, { type Socket } from "node:net";
import { Duplex } from "node:stream";
import tls from "node:tls";
import { isOpeningTunnel } from "./proxy-handshake.js";

type TlsArgs = [tls.ConnectionOptions & Record<string, any>, (() => void) | undefined];

const normalizeArgs = (net as unknown as { _normalizeArgs(args: unknown[]): [Record<string, any>, (() => void) | null] })._normalizeArgs;

/** tls.connect's own argument forms: (options[, cb]), (port[, host][, options][, cb]), (path[, options][, cb]). */
function tlsArgs(args: unknown[]): TlsArgs {
  const [normalized, callback] = normalizeArgs(args);
  // Never the caller's object: the socket option is replaced below.
  const options = { ...normalized };
  for (const extra of [args[1], args[2]]) {
    if (extra !== null && typeof extra === "object") {
      Object.assign(options, extra);
      break;
    }
  }
  return [options, callback ?? undefined];
}

/**
 * The tunnelled socket as a plain Duplex, emitting `connect` once the tunnel is open. TLS
 * writes its hello at once: it waits here for the tunnel, so that a refused connection fails
 * with the refusal rather than with a write to a closed socket.
 */
class TunnelStream extends Duplex {
  private open = false;
  private waiting: (() => void) | undefined;

  constructor(private readonly socket: Socket) {
    super({ allowHalfOpen: true });
    socket.on("data", (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on("end", () => this.push(null));
    socket.on("error", (error) => this.destroy(error));
    socket.on("close", () => this.destroy());
    socket.once("connect", () => {
      this.open = true;
      this.emit("connect");
      const write = this.waiting;
      this.waiting = undefined;
      write?.();
    });
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // One write at most waits: the stream calls _write again only after this callback.
    if (this.open) this.socket.write(chunk, encoding, callback);
    else this.waiting = () => this.socket.write(chunk, encoding, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.socket.destroy(error ?? undefined);
    callback(error);
  }
}

/** Options trusting the extra CA certificates too, unless the caller chose what to trust. */
function withExtraCa(extraCaFile: string | undefined): (options: TlsArgs[0]) => void {
  if (!extraCaFile) return () => {};
  let context: tls.SecureContext | undefined;
  let ca: string[] | undefined;
  return (options) => {
    if (options.ca !== undefined || options.secureContext !== undefined) return;
    ca ??= [...tls.rootCertificates, readFileSync(extraCaFile, "utf8")];
    // One context for every connection that sets nothing of its own (parsing the roots is the cost).
    if (options.cert === undefined && options.key === undefined && options.pfx === undefined)
      options.secureContext = context ??= tls.createSecureContext({ ca });
    else options.ca = ca;
  };
}

export function installTlsEgress(extraCaFile?: string): void {
  const connect = tls.connect;
  const trustExtraCa = withExtraCa(extraCaFile);
  tls.connect = function egressTlsConnect(...args: unknown[]): tls.TLSSocket {
    const [options, callback] = tlsArgs(args);
    trustExtraCa(options);
    if (options.socket) {
      // A socket of user code still opening its tunnel: TLS reads it after the reply.
      if (isOpeningTunnel(options.socket)) options.socket = new TunnelStream(options.socket as Socket);
      return connect(options, callback);
    }
    const raw = new net.Socket({ allowHalfOpen: true });
    const stream = new TunnelStream(raw);
    // Refusals and bad arguments surface as they would for tls.connect's own socket.
    raw.connect({ host: options.host, port: options.port, path: options.path, family: options.family } as net.NetConnectOpts);
    const secure = connect({ ...options, socket: stream }, callback);
    raw.once("connect", () => {
      for (const name of ["remoteAddress", "remotePort", "remoteFamily"] as const)
        Object.defineProperty(secure, name, { value: raw[name], configurable: true, enumerable: false });
    });
    if (options.timeout) secure.setTimeout(options.timeout);
    return secure;
  } as typeof tls.connect;
}
