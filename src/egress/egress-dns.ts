// DNS answers of the egress proxy for runners, which have no resolver of their own: lookup
// (getaddrinfo), resolve (queries by record type), reverse and lookupService, as JSON. Answers
// holding an address are checked like connection targets: a forbidden address refuses the
// whole answer unless private egress is allowed, so DNS cannot map the private network.
import dns from "node:dns";
import type { ServerResponse } from "node:http";
import { EgressRefusedError, isForbiddenAddress, normalizeHostLiteral, type AddressSet } from "./egress-guard.js";
import { failureOf, failureHeaders, type EgressFailure } from "./egress-failure.js";
import { DNS_LOOKUP_PATH, DNS_LOOKUP_SERVICE_PATH, DNS_RESOLVE_PATH, DNS_REVERSE_PATH, type DnsFailureBody } from "./egress-protocol.js";
import { resolveTarget, type LookupFunction } from "./egress-target.js";

/** The queries the proxy makes; dns.promises (the default) and a dns.promises.Resolver fit. */
export interface EgressResolver {
  resolve(hostname: string, rrtype: string): Promise<unknown>;
  resolve4(hostname: string, options: { ttl: true }): Promise<unknown>;
  resolve6(hostname: string, options: { ttl: true }): Promise<unknown>;
  reverse(ip: string): Promise<string[]>;
  lookupService?(address: string, port: number): Promise<{ hostname: string; service: string }>;
}

export interface DnsSettings {
  allowPrivate: boolean;
  lookup: LookupFunction;
  resolver: EgressResolver;
  hostAddresses: AddressSet;
}

export const RRTYPES = new Set(["A", "AAAA", "ANY", "CAA", "CNAME", "MX", "NAPTR", "NS", "PTR", "SOA", "SRV", "TXT"]);
const NAME = /^[A-Za-z0-9_.-]{1,253}$/;

class BadQuery extends Error {}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | number | undefined> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function sendFailure(res: ServerResponse, failure: EgressFailure): void {
  const body: DnsFailureBody = {
    error: { code: failure.code, syscall: failure.syscall, message: failure.message, address: failure.address },
  };
  send(res, failure.status, body, failureHeaders(failure) as Record<string, string>);
}

/** A DNS error of the resolver (ENOTFOUND, ENODATA, ESERVFAIL…), passed on with its syscall. */
function dnsFailure(error: unknown): EgressFailure {
  const e = error as NodeJS.ErrnoException;
  if (error instanceof EgressRefusedError || typeof e?.code !== "string" || !e.syscall) return failureOf(error);
  return { status: 502, code: e.code, syscall: e.syscall, message: e.message };
}

function param(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  if (value === null || value === "") throw new BadQuery(`missing ${name}`);
  return value;
}

function hostParam(url: URL): string {
  const host = param(url, "host");
  if (!NAME.test(host) && normalizeHostLiteral(host) === undefined) throw new BadQuery("malformed host");
  return host;
}

function addressParam(url: URL, { allowPrivate, hostAddresses }: DnsSettings): string {
  const address = normalizeHostLiteral(param(url, "address"));
  if (address === undefined) throw new BadQuery("address must be an IP address");
  if (!allowPrivate && isForbiddenAddress(address, hostAddresses)) throw new EgressRefusedError(address, address);
  return address;
}

/** Refuses an answer naming a forbidden address (A, AAAA and ANY records carry them). */
function checkRecords(host: string, records: unknown, { allowPrivate, hostAddresses }: DnsSettings): void {
  if (allowPrivate || !Array.isArray(records)) return;
  for (const record of records) {
    const address = typeof record === "string" ? record : (record as { address?: unknown })?.address;
    if (typeof address === "string" && isForbiddenAddress(address, hostAddresses)) throw new EgressRefusedError(host, address);
  }
}

async function answer(settings: DnsSettings, url: URL): Promise<unknown> {
  const { allowPrivate, resolver, hostAddresses } = settings;
  switch (url.pathname) {
    case DNS_LOOKUP_PATH: {
      const family = Number(url.searchParams.get("family") ?? 0);
      if (family !== 0 && family !== 4 && family !== 6) throw new BadQuery("family must be 0, 4 or 6");
      return { addresses: await resolveTarget(hostParam(url), { allowPrivate, lookup: settings.lookup, family, hostAddresses }) };
    }
    case DNS_RESOLVE_PATH: {
      const host = hostParam(url);
      const rrtype = (url.searchParams.get("rrtype") ?? "A").toUpperCase();
      if (!RRTYPES.has(rrtype)) throw new BadQuery("unsupported rrtype");
      const ttl = url.searchParams.get("ttl") === "1";
      const records =
        ttl && rrtype === "A"
          ? await resolver.resolve4(host, { ttl })
          : ttl && rrtype === "AAAA"
            ? await resolver.resolve6(host, { ttl })
            : await resolver.resolve(host, rrtype);
      if (rrtype === "A" || rrtype === "AAAA" || rrtype === "ANY") checkRecords(host, records, settings);
      return { records };
    }
    case DNS_REVERSE_PATH:
      return { hostnames: await resolver.reverse(addressParam(url, settings)) };
    case DNS_LOOKUP_SERVICE_PATH: {
      const address = addressParam(url, settings);
      const port = Number(param(url, "port"));
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BadQuery("malformed port");
      return resolver.lookupService ? await resolver.lookupService(address, port) : await dns.promises.lookupService(address, port);
    }
    default:
      return undefined;
  }
}

export async function handleDns(settings: DnsSettings, url: URL, res: ServerResponse): Promise<void> {
  try {
    const body = await answer(settings, url);
    if (body === undefined) send(res, 404, { error: { code: "NOT_FOUND", message: "no such DNS query" } });
    else send(res, 200, body);
  } catch (error) {
    if (error instanceof BadQuery) sendFailure(res, { status: 400, code: "BAD_REQUEST", message: error.message });
    else sendFailure(res, dnsFailure(error));
  }
}
