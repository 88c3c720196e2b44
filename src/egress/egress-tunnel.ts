// CONNECT host:port through the egress proxy: take one of the account's tunnel slots, resolve
// and check the target, connect, answer 200 with the address reached, then pipe both ways
// until either side ends, the tunnel is idle for idleMs, or its execution or runner ends. Bytes the client sent after its request
// header (before the answer) are forwarded first, once the upstream connection is open. A
// client asking for it (ACK_HEADER) gets the server's bytes only after its ack byte.
import type { IncomingMessage } from "node:http";
import type { LookupAddress } from "node:dns";
import net from "node:net";
import type { Duplex } from "node:stream";
import { badRequest, failureOf, rawFailureResponse, tunnelLimit, type EgressFailure } from "./egress-failure.js";
import type { AddressSet } from "./egress-guard.js";
import { ACK_BYTE, ACK_HEADER, ADDRESS_HEADER, EXECUTION_HEADER, FAMILY_HEADER, PORT_HEADER } from "./egress-protocol.js";
import { connectHost, parseAuthority, pinnedLookup, resolveTarget, type LookupFunction } from "./egress-target.js";
import type { TunnelLedger, TunnelOwner } from "./tunnel-ledger.js";

export interface TunnelSettings {
  allowPrivate: boolean;
  lookup: LookupFunction;
  connectTimeoutMs: number;
  hostAddresses: AddressSet;
  ledger: TunnelLedger;
  /** A tunnel with no bytes either way for this long is closed. */
  idleMs: number;
  /** Every upstream socket, so that closing the proxy can end them. */
  track(socket: net.Socket): void;
}

function requestedFamily(req: IncomingMessage): 0 | 4 | 6 {
  const family = req.headers[FAMILY_HEADER];
  return family === "4" ? 4 : family === "6" ? 6 : 0;
}

function requestedExecution(req: IncomingMessage): number | undefined {
  const value = req.headers[EXECUTION_HEADER];
  return typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

function fail(client: Duplex, failure: EgressFailure): void {
  if (client.destroyed) return;
  client.end(rawFailureResponse(failure));
  // What the client sent for the tunnel is read and dropped.
  client.resume();
}

/** Opens a TCP connection to checked addresses within timeoutMs (ETIMEDOUT after it). */
export function connectUpstream(host: string, port: number, addresses: LookupAddress[], timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    // Half-open allowed: each direction of the tunnel ends on its own (pipe() ends the other).
    const upstream = net.connect({ host, port, lookup: pinnedLookup(addresses), noDelay: true, allowHalfOpen: true });
    const timer = setTimeout(() => {
      const err: NodeJS.ErrnoException = new Error(`connect ETIMEDOUT ${host}:${port}`);
      err.code = "ETIMEDOUT";
      upstream.destroy(err);
    }, timeoutMs);
    const onError = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    upstream.once("error", onError);
    upstream.once("connect", () => {
      clearTimeout(timer);
      upstream.removeListener("error", onError);
      resolve(upstream);
    });
  });
}

/** `owner` is the runner whose door the request came through. */
export async function handleConnect(
  settings: TunnelSettings,
  owner: TunnelOwner,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
): Promise<void> {
  // The client may go away or misbehave at any point: its errors only end the tunnel.
  client.on("error", () => client.destroy());
  const target = parseAuthority(req.url ?? "");
  if (!target) return fail(client, badRequest("CONNECT needs host:port"));
  // The slot is taken before any lookup, so that requests in flight count against the cap too.
  const slot = settings.ledger.take(owner, requestedExecution(req));
  if (!slot) return fail(client, tunnelLimit(settings.ledger.max));
  client.once("close", slot.release);
  slot.attach(client);
  // Bytes arriving while the upstream connection opens wait in the paused client socket.
  client.pause();
  let upstream: net.Socket;
  try {
    const addresses = await resolveTarget(target.host, {
      allowPrivate: settings.allowPrivate,
      lookup: settings.lookup,
      family: requestedFamily(req),
      hostAddresses: settings.hostAddresses,
    });
    if (client.destroyed) return;
    upstream = await connectUpstream(connectHost(target.host, addresses), target.port, addresses, settings.connectTimeoutMs);
  } catch (error) {
    // A failed request holds no slot, even while its client keeps the connection half open.
    slot.release();
    return fail(client, failureOf(error));
  }
  settings.track(upstream);
  // An abrupt end of either side ends the other; orderly ends travel through pipe().
  upstream.on("error", () => client.destroy());
  upstream.on("close", (hadError) => hadError && client.destroy());
  client.on("close", () => upstream.destroy());
  if (client.destroyed) return void upstream.destroy();
  // Reads and writes of the upstream socket both restart its timer, so this is idle both ways.
  upstream.setTimeout(settings.idleMs, () => client.destroy());
  const family = upstream.remoteFamily === "IPv6" ? 6 : 4;
  client.write(
    `HTTP/1.1 200 Connection Established\r\n${ADDRESS_HEADER}: ${upstream.remoteAddress}\r\n${PORT_HEADER}: ${upstream.remotePort}\r\n${FAMILY_HEADER}: ${family}\r\n\r\n`,
  );
  const relay = (first: Buffer) => {
    if (first.length > 0) upstream.write(first);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  };
  if (req.headers[ACK_HEADER] !== "1") return relay(head);
  awaitAck(client, head, relay);
}

/** Waits for the client's ACK_BYTE (the first byte after its request), then relays the rest. */
function awaitAck(client: Duplex, head: Buffer, relay: (first: Buffer) => void): void {
  const check = (chunk: Buffer) => {
    if (chunk[0] === ACK_BYTE) relay(chunk.subarray(1));
    else client.destroy();
  };
  if (head.length > 0) return check(head);
  client.once("data", (chunk: Buffer) => {
    client.pause();
    check(chunk);
  });
  client.resume();
}
