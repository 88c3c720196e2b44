// DNS of user code is answered by the egress proxy (a sandboxed runner has no resolver):
// dns.lookup, dns.resolve* (module functions and dns.Resolver methods), reverse and
// lookupService, callback and promise forms. The proxy refuses names resolving to forbidden
// addresses, as it refuses to connect to them.
import dns, { type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { EgressRefusedError } from "../../egress/egress-guard.js";
import {
  DNS_LOOKUP_PATH,
  DNS_LOOKUP_SERVICE_PATH,
  DNS_RESOLVE_PATH,
  DNS_REVERSE_PATH,
  EGRESS_REFUSED,
  type DnsFailureBody,
} from "../../egress/egress-protocol.js";
import type { ProxyAccess } from "./proxy-handshake.js";
import { proxyUnavailable, systemError } from "./proxy-errors.js";
import { queryProxy } from "./proxy-query.js";

/** resolve* methods and the record type each asks for (resolve takes it as an argument). */
const RESOLVE_METHODS: Record<string, string | undefined> = {
  resolve: undefined,
  resolve4: "A",
  resolve6: "AAAA",
  resolveAny: "ANY",
  resolveCaa: "CAA",
  resolveCname: "CNAME",
  resolveMx: "MX",
  resolveNaptr: "NAPTR",
  resolveNs: "NS",
  resolvePtr: "PTR",
  resolveSoa: "SOA",
  resolveSrv: "SRV",
  resolveTxt: "TXT",
};

type Callback = (err: NodeJS.ErrnoException | null, ...results: any[]) => void;

function invalidArg(name: string, expected: string, value: unknown): TypeError {
  const error: NodeJS.ErrnoException = new TypeError(`The "${name}" argument must be ${expected}. Received ${typeof value}`);
  error.code = "ERR_INVALID_ARG_TYPE";
  return error;
}

function checkString(name: string, value: unknown): string {
  if (typeof value !== "string") throw invalidArg(name, "of type string", value);
  return value;
}

function checkCallback(callback: unknown): Callback {
  if (typeof callback !== "function") throw invalidArg("callback", "of type function", callback);
  return callback as Callback;
}

/** Calls back outside the promise chain, so a throw in user code is an uncaught exception as in Node. */
function settle<T>(promise: Promise<T>, callback: Callback, spread: (value: T) => unknown[]): void {
  promise.then(
    (value) => process.nextTick(() => callback(null, ...spread(value))),
    (error: NodeJS.ErrnoException) => process.nextTick(() => callback(error)),
  );
}

function familyOf(options: unknown): 0 | 4 | 6 {
  const family = typeof options === "object" && options !== null ? (options as { family?: unknown }).family : options;
  return family === 4 || family === "IPv4" ? 4 : family === 6 || family === "IPv6" ? 6 : 0;
}

export function installDnsEgress(proxy: ProxyAccess | undefined): void {
  async function ask<T>(path: string, params: Record<string, string>, subject: { hostname?: string; address?: string }): Promise<T> {
    const answer = await queryProxy(proxy, `${path}?${new URLSearchParams(params)}`);
    if (answer.status === 200) return answer.body as T;
    const failure = (answer.body as DnsFailureBody | undefined)?.error;
    if (!failure?.code) throw proxyUnavailable();
    if (failure.code === EGRESS_REFUSED) throw new EgressRefusedError(subject.hostname ?? subject.address ?? "", failure.address);
    throw systemError(failure.code, failure.syscall ?? "getaddrinfo", subject);
  }

  const lookupAll = (hostname: string, family: 0 | 4 | 6) =>
    ask<{ addresses: LookupAddress[] }>(DNS_LOOKUP_PATH, { host: hostname, family: String(family) }, { hostname }).then((a) => a.addresses);
  const records = (hostname: string, rrtype: string, ttl: boolean) =>
    ask<{ records: unknown }>(DNS_RESOLVE_PATH, { host: hostname, rrtype, ...(ttl ? { ttl: "1" } : {}) }, { hostname }).then(
      (a) => a.records,
    );
  const reverse = (ip: string) =>
    ask<{ hostnames: string[] }>(DNS_REVERSE_PATH, { address: checkString("ip", ip) }, { hostname: ip }).then((a) => a.hostnames);
  const lookupService = (address: string, port: number) =>
    ask<{ hostname: string; service: string }>(
      DNS_LOOKUP_SERVICE_PATH,
      { address: checkString("address", address), port: String(port) },
      { address },
    );

  function lookupAnswer(hostname: string, options: unknown): Promise<LookupAddress[] | LookupAddress | { address: null; family: number }> {
    checkString("hostname", hostname);
    const family = familyOf(options);
    const all = (options as { all?: boolean } | undefined)?.all === true;
    // Node answers an empty name and IP literals without asking anyone (listen() looks its
    // host up too); connecting to the address is what the guard judges.
    if (!hostname) return Promise.resolve(all ? [] : { address: null, family: family === 6 ? 6 : 4 });
    const literal = isIP(hostname);
    if (literal) return Promise.resolve(all ? [{ address: hostname, family: literal }] : { address: hostname, family: literal });
    return lookupAll(hostname, family).then((addresses) => (all ? addresses : addresses[0]!));
  }

  function lookup(hostname: string, options: unknown, callback?: unknown): object {
    if (typeof options === "function") [options, callback] = [undefined, options];
    const done = checkCallback(callback);
    settle(lookupAnswer(hostname, options), done, (answer) => (Array.isArray(answer) ? [answer] : [answer.address, answer.family]));
    return {};
  }

  function resolveRecords(method: string, hostname: string, second: unknown): Promise<unknown> {
    checkString("name", hostname);
    const rrtype = RESOLVE_METHODS[method] ?? (typeof second === "string" ? second.toUpperCase() : "A");
    const ttl = (second as { ttl?: boolean } | undefined)?.ttl === true;
    return records(hostname, rrtype, ttl);
  }

  const patched: Record<string, { callback: (...args: any[]) => unknown; promise: (...args: any[]) => Promise<unknown> }> = {
    reverse: {
      callback: (ip: string, callback: unknown) => settle(reverse(ip), checkCallback(callback), (names) => [names]),
      promise: (ip: string) => reverse(ip),
    },
  };
  for (const method of Object.keys(RESOLVE_METHODS)) {
    patched[method] = {
      callback: (hostname: string, second: unknown, callback?: unknown) => {
        if (typeof second === "function") [second, callback] = [undefined, second];
        settle(resolveRecords(method, hostname, second), checkCallback(callback), (found) => [found]);
        return {};
      },
      promise: (hostname: string, second?: unknown) => resolveRecords(method, hostname, second),
    };
  }

  const callbackResolver = dns.Resolver.prototype as unknown as Record<string, unknown>;
  const promiseResolver = dns.promises.Resolver.prototype as unknown as Record<string, unknown>;
  const callbackModule = dns as unknown as Record<string, unknown>;
  const promiseModule = dns.promises as unknown as Record<string, unknown>;
  for (const [method, { callback, promise }] of Object.entries(patched)) {
    callbackResolver[method] = callbackModule[method] = callback;
    promiseResolver[method] = promiseModule[method] = promise;
  }
  callbackModule.lookup = lookup;
  promiseModule.lookup = (hostname: string, options?: unknown) => lookupAnswer(hostname, options);
  callbackModule.lookupService = (address: string, port: number, callback: unknown) => {
    settle(lookupService(address, port), checkCallback(callback), (found) => [found.hostname, found.service]);
    return {};
  };
  promiseModule.lookupService = lookupService;
}
