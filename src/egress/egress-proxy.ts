// The egress proxy: the only way out of a sandboxed runner, served by the service on a Unix
// socket the sandbox can reach. It tunnels TCP (CONNECT host:port), forwards plain HTTP
// (absolute-form requests) and answers DNS queries (GET /dns/...), applying the egress guard
// to every address first. Its clients run user code, so any input may be hostile: requests
// are parsed by node:http with a capped header size, and a bad one fails only its connection.
// Each runner comes in through a door of its own (a Unix socket only it can reach), so that
// its tunnels are counted for its account and closed when its executions or the runner end.
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { chmod } from "node:fs/promises";
import dns from "node:dns";
import http from "node:http";
import net from "node:net";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Duplex } from "node:stream";
import { handleDns, type EgressResolver } from "./egress-dns.js";
import { badRequest, rawFailureResponse } from "./egress-failure.js";
import { handleForward, respondFailure } from "./egress-forward.js";
import type { AddressSet } from "./egress-guard.js";
import { systemLookup, type LookupFunction } from "./egress-target.js";
import { handleConnect } from "./egress-tunnel.js";
import { systemHostAddresses } from "./host-addresses.js";
import { closeTunnels, createTunnelLedger, type TunnelOwner } from "./tunnel-ledger.js";

export interface EgressProxyOptions {
  /** A shared socket, outside any door (tests); runners come in through doors (openDoor). */
  socketPath?: string;
  /** Where doors are made: one folder each, holding its socket. */
  doorsDir?: string;
  allowPrivateEgress: boolean;
  /** The host's own addresses, refused like private ones (the system's interfaces by default). */
  hostAddresses?: AddressSet;
  /** Open tunnels an account may hold at once (SLUICE_MAX_TUNNELS_PER_ACCOUNT). */
  maxTunnelsPerAccount?: number;
  /** A tunnel idle both ways this long is closed. */
  tunnelIdleMs?: number;
  /** How long opening an upstream connection may take (ETIMEDOUT, 504 after it). */
  connectTimeoutMs?: number;
  /** Name resolution for connections and /dns/lookup (dns.lookup by default). */
  lookup?: LookupFunction;
  /** DNS queries of /dns/resolve, /dns/reverse and /dns/lookup-service (dns.promises by default). */
  resolver?: EgressResolver;
}

/** One runner's way in: its own socket, in a folder of its own to bind into its sandbox. */
export interface EgressDoor {
  dir: string;
  path: string;
  /** An execution ended: its tunnels close, except those of the executions in `keep` (still queued or running). */
  endExecution(keep?: ReadonlySet<number>): void;
  /** The runner ended: every tunnel it holds closes and the door is removed. */
  close(): void;
}

/** The proxy without a shared socket: runners reach it only through doors. */
export interface EgressGate {
  /** A door for a runner of `account` (needs doorsDir). */
  openDoor(account: string): EgressDoor;
  /** Open tunnels of an account. */
  tunnelCount(account: string): number;
  close(): Promise<void>;
}

/** The proxy listening on a shared socket as well. */
export interface EgressProxy extends EgressGate {
  socketPath: string;
}

/** Request line and headers together; beyond it the request is answered 431 and closed. */
export const MAX_HEADER_BYTES = 8 * 1024;
const CONNECT_TIMEOUT_MS = 30_000;
export const MAX_TUNNELS_PER_ACCOUNT = 64;
export const TUNNEL_IDLE_MS = 60_000;
// A client has this long to send a complete request header, so idle connections do not pile up.
const HEADERS_TIMEOUT_MS = 15_000;

/** The proxy, listening on options.socketPath. */
export async function createEgressProxy(options: EgressProxyOptions & { socketPath: string }): Promise<EgressProxy> {
  const proxy = buildEgressProxy(options);
  await proxy.listening;
  // Sandboxed runners connect as another user; the folder holding the socket limits who can.
  await chmod(options.socketPath, 0o777);
  return { ...proxy, socketPath: options.socketPath };
}

/**
 * The proxy, built at once: doors can be opened right away (listen binds synchronously), which
 * the runner launcher needs. `listening` settles once the shared socket, if any, listens.
 */
export function buildEgressProxy(options: EgressProxyOptions): EgressGate & { listening: Promise<void> } {
  const allowPrivate = options.allowPrivateEgress;
  const lookup = options.lookup ?? systemLookup;
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const resolver = options.resolver ?? dns.promises;
  const hostAddresses = options.hostAddresses ?? systemHostAddresses();
  const ledger = createTunnelLedger(options.maxTunnelsPerAccount ?? MAX_TUNNELS_PER_ACCOUNT);
  const tunnelSettings = { allowPrivate, lookup, connectTimeoutMs, hostAddresses, ledger, idleMs: options.tunnelIdleMs ?? TUNNEL_IDLE_MS };
  // Connections through the shared socket have no runner: they count for an account of their own.
  const shared: TunnelOwner = { account: "", tunnels: new Map() };
  const ownerOf = new WeakMap<Duplex, TunnelOwner>();
  const doors = new Set<EgressDoor>();
  // Every socket of the proxy, both sides: tunnels are no longer the HTTP server's to close.
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };

  // The Host header means nothing to the proxy, so it is not required.
  const server = http.createServer(
    { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: HEADERS_TIMEOUT_MS, requireHostHeader: false },
    (req, res) => {
      res.on("error", () => res.destroy());
      const target = req.url ?? "";
      if (!target.startsWith("/"))
        return void handleForward({ allowPrivate, lookup, connectTimeoutMs, hostAddresses }, req, res).catch(() => res.destroy());
      if (req.method !== "GET") return respondFailure(res, { ...badRequest("DNS queries are GET requests"), status: 405 });
      let url: URL;
      try {
        url = new URL(target, "http://egress-proxy");
      } catch {
        return respondFailure(res, badRequest("malformed request target"));
      }
      void handleDns({ allowPrivate, lookup, resolver, hostAddresses }, url, res).catch(() => res.destroy());
    },
  );
  server.on("connection", track);
  server.on("connect", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    void handleConnect({ ...tunnelSettings, track }, ownerOf.get(req.socket) ?? shared, req, socket, head).catch(() => socket.destroy());
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") return void socket.destroy();
    const failure = error.code === "HPE_HEADER_OVERFLOW" ? badRequest("request header too large", 431) : badRequest("malformed request");
    socket.end(rawFailureResponse(failure));
  });

  const listening = new Promise<void>((resolve, reject) => {
    if (options.socketPath === undefined) return resolve();
    server.once("error", reject);
    server.listen(options.socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  listening.catch(() => {});
  // Later server errors (a failed accept when out of file descriptors) fail only that client.
  listening.then(
    () => server.on("error", () => {}),
    () => {},
  );

  function openDoor(account: string): EgressDoor {
    if (!options.doorsDir) throw new Error("the egress proxy has no doorsDir to open doors in");
    // An unguessable name in a folder others may pass through but not list; the sandbox binds
    // only this runner's folder.
    const dir = join(options.doorsDir, randomBytes(12).toString("hex"));
    mkdirSync(dir, { mode: 0o711 });
    chmodSync(dir, 0o711);
    const path = join(dir, "egress.sock");
    const owner: TunnelOwner = { account, tunnels: new Map() };
    const listener = net.createServer((socket) => {
      ownerOf.set(socket, owner);
      server.emit("connection", socket);
    });
    // A door that failed to listen leaves its runner without network; it fails no one else.
    listener.on("error", () => {});
    listener.listen(path);
    // A sandboxed runner connects as another user.
    listener.once("listening", () => chmod(path, 0o777).catch(() => {}));
    let closed = false;
    const door: EgressDoor = {
      dir,
      path,
      endExecution: (keep) => closeTunnels(owner, keep),
      close() {
        if (closed) return;
        closed = true;
        doors.delete(door);
        listener.close();
        closeTunnels(owner);
        rmSync(dir, { recursive: true, force: true });
      },
    };
    doors.add(door);
    return door;
  }

  let closing: Promise<void> | undefined;
  return {
    listening,
    openDoor,
    tunnelCount: (account) => ledger.count(account),
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const door of doors) door.close();
        if (!server.listening) resolve();
        else server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
