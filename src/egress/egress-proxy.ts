// The egress proxy: the only way out of a sandboxed runner, served by the service on a Unix
// socket the sandbox can reach. It tunnels TCP (CONNECT host:port), forwards plain HTTP
// (absolute-form requests) and answers DNS queries (GET /dns/...), applying the egress guard
// to every address first. Its clients run user code, so any input may be hostile: requests
// are parsed by node:http with a capped header size, and a bad one fails only its connection.
import { chmod } from "node:fs/promises";
import dns from "node:dns";
import http from "node:http";
import type { Duplex } from "node:stream";
import { handleDns, type EgressResolver } from "./egress-dns.js";
import { badRequest, rawFailureResponse } from "./egress-failure.js";
import { handleForward, respondFailure } from "./egress-forward.js";
import { systemLookup, type LookupFunction } from "./egress-target.js";
import { handleConnect } from "./egress-tunnel.js";

export interface EgressProxyOptions {
  socketPath: string;
  allowPrivateEgress: boolean;
  /** How long opening an upstream connection may take (ETIMEDOUT, 504 after it). */
  connectTimeoutMs?: number;
  /** Name resolution for connections and /dns/lookup (dns.lookup by default). */
  lookup?: LookupFunction;
  /** DNS queries of /dns/resolve, /dns/reverse and /dns/lookup-service (dns.promises by default). */
  resolver?: EgressResolver;
}

export interface EgressProxy {
  socketPath: string;
  close(): Promise<void>;
}

/** Request line and headers together; beyond it the request is answered 431 and closed. */
export const MAX_HEADER_BYTES = 8 * 1024;
const CONNECT_TIMEOUT_MS = 30_000;
// A client has this long to send a complete request header, so idle connections do not pile up.
const HEADERS_TIMEOUT_MS = 15_000;

export async function createEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const allowPrivate = options.allowPrivateEgress;
  const lookup = options.lookup ?? systemLookup;
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const resolver = options.resolver ?? dns.promises;
  // Every socket of the proxy, both sides: tunnels are no longer the HTTP server's to close.
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };

  // The Host header means nothing to the proxy, so it is not required.
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: HEADERS_TIMEOUT_MS, requireHostHeader: false }, (req, res) => {
    res.on("error", () => res.destroy());
    const target = req.url ?? "";
    if (!target.startsWith("/")) return void handleForward({ allowPrivate, lookup, connectTimeoutMs }, req, res).catch(() => res.destroy());
    if (req.method !== "GET") return respondFailure(res, { ...badRequest("DNS queries are GET requests"), status: 405 });
    let url: URL;
    try {
      url = new URL(target, "http://egress-proxy");
    } catch {
      return respondFailure(res, badRequest("malformed request target"));
    }
    void handleDns({ allowPrivate, lookup, resolver }, url, res).catch(() => res.destroy());
  });
  server.on("connection", track);
  server.on("connect", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    void handleConnect({ allowPrivate, lookup, connectTimeoutMs, track }, req, socket, head).catch(() => socket.destroy());
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") return void socket.destroy();
    const failure = error.code === "HPE_HEADER_OVERFLOW" ? badRequest("request header too large", 431) : badRequest("malformed request");
    socket.end(rawFailureResponse(failure));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Later server errors (a failed accept when out of file descriptors) fail only that client.
  server.on("error", () => {});
  // Sandboxed runners connect as another user; the folder holding the socket limits who can.
  await chmod(options.socketPath, 0o777);

  let closing: Promise<void> | undefined;
  return {
    socketPath: options.socketPath,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
