// Where a proxied connection may go: parses `host:port`, resolves the name in the service
// (outside any sandbox) and applies the egress guard to every address, before any packet is
// sent. The connection then uses exactly these addresses (pinnedLookup), so a name cannot
// resolve to something else between the check and the connect.
import type { LookupAddress, LookupAllOptions } from "node:dns";
import dns from "node:dns";
import { EgressRefusedError, isForbiddenAddress, normalizeHostLiteral, refusedLiteralHost, type AddressSet } from "./egress-guard.js";

/** A dns.lookup-compatible function; only the `{ all: true }` form is used. */
export type LookupFunction = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export const systemLookup: LookupFunction = (hostname, options, callback) => dns.lookup(hostname, options, callback);

export interface Target {
  host: string;
  port: number;
}

// Names and literals as a client may write them; anything else (spaces, slashes, userinfo,
// control characters) is a malformed request rather than something to hand to getaddrinfo.
const NAME = /^[A-Za-z0-9_.-]{1,253}$/;

/** `host:port` or `[v6]:port` as in a CONNECT request line, or undefined when malformed. */
export function parseAuthority(authority: string): Target | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  return parseHostPort(match[1]!, match[2]!);
}

export function parseHostPort(rawHost: string, rawPort: string): Target | undefined {
  const port = Number(rawPort);
  if (!/^\d{1,5}$/.test(rawPort) || port < 1 || port > 65535) return undefined;
  const bracketed = rawHost.startsWith("[") && rawHost.endsWith("]");
  const host = bracketed ? rawHost.slice(1, -1) : rawHost;
  if (bracketed ? normalizeHostLiteral(rawHost) === undefined : !NAME.test(host)) return undefined;
  return { host, port };
}

/** A failure of the name resolution step (its code is the DNS code, e.g. ENOTFOUND). */
export class ResolveError extends Error {
  readonly syscall = "getaddrinfo";
  constructor(
    readonly code: string,
    readonly hostname: string,
  ) {
    super(`getaddrinfo ${code} ${hostname}`);
  }
}

export interface ResolveOptions {
  allowPrivate: boolean;
  lookup: LookupFunction;
  family?: 0 | 4 | 6;
  /** The host's own addresses, refused like the fixed ranges (host-addresses.ts). */
  hostAddresses: AddressSet;
}

/**
 * The addresses `host` may be reached at. Throws EgressRefusedError when the literal, or any
 * address the name resolves to, is forbidden (unless private egress is allowed), and
 * ResolveError when the name does not resolve.
 */
export async function resolveTarget(host: string, options: ResolveOptions): Promise<LookupAddress[]> {
  const refused = refusedLiteralHost(host, options.allowPrivate, options.hostAddresses);
  if (refused) throw refused;
  const literal = normalizeHostLiteral(host);
  if (literal !== undefined) return [{ address: literal, family: literal.includes(":") ? 6 : 4 }];
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) => {
    options.lookup(host, { all: true, family: options.family ?? 0 }, (err, found) => {
      if (err) reject(new ResolveError(String(err.code ?? "ENOTFOUND"), host));
      else resolve(found);
    });
  });
  if (addresses.length === 0) throw new ResolveError("ENOTFOUND", host);
  if (!options.allowPrivate) {
    const bad = addresses.find((a) => isForbiddenAddress(a.address, options.hostAddresses));
    if (bad) throw new EgressRefusedError(host, bad.address);
  }
  return addresses;
}

type PinnedCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net/http that answers with addresses already checked, never asking DNS again. */
export function pinnedLookup(addresses: LookupAddress[]) {
  return (_hostname: string, options: { all?: boolean; family?: number | string }, callback: PinnedCallback): void => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : Number(options.family ?? 0);
    const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    if (usable.length === 0) {
      const err: NodeJS.ErrnoException = new ResolveError("ENOTFOUND", _hostname);
      return process.nextTick(callback, err, options.all ? [] : "");
    }
    if (options.all) process.nextTick(callback, null, usable);
    else process.nextTick(callback, null, usable[0]!.address, usable[0]!.family);
  };
}

/** A host for net.connect: the address itself when there is one (no lookup), else the name. */
export function connectHost(name: string, addresses: LookupAddress[]): string {
  return addresses.length === 1 ? addresses[0]!.address : name;
}
