// DNS answered from a table, injected into the egress proxy so that tests resolve names
// without sending a query anywhere. Unknown names are NXDOMAIN (ENOTFOUND), known names
// without the asked record type have no data (ENODATA), as a real resolver answers.
import type { LookupAddress } from "node:dns";
import type { EgressResolver } from "../../src/egress/egress-dns.js";
import type { LookupFunction } from "../../src/egress/egress-target.js";

/**
 * An address the guard lets through (the documentation ranges are refused, so they cannot stand
 * in for a public address): only ever answered by the fake DNS, never dialled. 192.88.99.0/24
 * was the 6to4 relay anycast prefix, deprecated (RFC 7526).
 */
export const PUBLIC_ADDRESS = "192.88.99.7";

export interface DnsTable {
  /** Answers of getaddrinfo (lookup) by name. */
  addresses: Record<string, LookupAddress[]>;
  /** Records of DNS queries by name, then by record type. */
  records?: Record<string, Record<string, unknown[]>>;
  /** PTR answers by address. */
  names?: Record<string, string[]>;
}

function dnsError(code: string, syscall: string, hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${syscall} ${code} ${hostname}`), { code, syscall, hostname });
}

export function fakeLookup(table: DnsTable): LookupFunction {
  return (hostname, _options, callback) => {
    const found = table.addresses[hostname];
    if (found) return void process.nextTick(callback, null, found);
    process.nextTick(callback, dnsError("ENOTFOUND", "getaddrinfo", hostname), []);
  };
}

export function fakeResolver(table: DnsTable): EgressResolver {
  const query = async (hostname: string, rrtype: string): Promise<unknown[]> => {
    const syscall = `query${rrtype === "ANY" ? "Any" : rrtype.charAt(0) + rrtype.slice(1).toLowerCase()}`;
    const byType = table.records?.[hostname];
    if (!byType) throw dnsError("ENOTFOUND", syscall, hostname);
    const found = byType[rrtype];
    if (!found) throw dnsError("ENODATA", syscall, hostname);
    return found;
  };
  const withTtl = async (hostname: string, rrtype: string) =>
    ((await query(hostname, rrtype)) as string[]).map((address) => ({ address, ttl: 60 }));
  return {
    resolve: query,
    resolve4: (hostname) => withTtl(hostname, "A"),
    resolve6: (hostname) => withTtl(hostname, "AAAA"),
    reverse: async (ip) => table.names?.[ip] ?? [],
  };
}
