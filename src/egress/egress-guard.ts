// Egress guard (a layer below delivery and runtime): refuses outbound connections to loopback, private, link-local, metadata,
// documentation and other non-public addresses, and to the host's own interface addresses
// when the caller passes them in (SSRF protection). Used by the webhook sender and, inside the
// sandboxed runner processes, by user code's network access — so it imports only node:dns.
//
// Two checks are needed because Node skips DNS for IP literals: `normalizeHostLiteral` +
// `isForbiddenAddress` for literal hosts (in any spelling getaddrinfo/inet_aton accepts), and
// `guardedLookup` as the agent's `lookup` for names, checked after resolution so that a name
// pointing at 127.0.0.1 (or rebinding to it) is refused too.
import dns from "node:dns";

export const EGRESS_REFUSED_MESSAGE = "egress to a private or loopback address is refused";

/** The setting that lifts the guard; messages for operators and API users name it so they know what to change. */
export const PRIVATE_EGRESS_SETTING = "SLUICE_ALLOW_PRIVATE_EGRESS";

/** The refusal as a webhook attempt's error: what was refused and the setting that would allow it. */
export const EGRESS_REFUSED_ATTEMPT_ERROR = `${EGRESS_REFUSED_MESSAGE} (${PRIVATE_EGRESS_SETTING} is off)`;

export class EgressRefusedError extends Error {
  readonly code = "EGRESS_REFUSED";
  constructor(
    readonly host: string,
    readonly address?: string,
  ) {
    super(EGRESS_REFUSED_MESSAGE);
    this.name = "EgressRefusedError";
  }
}

// ---------------------------------------------------------------- parsing

/** IPv4 in any inet_aton spelling: 1–4 parts, each decimal, 0x-hex or 0-octal. */
function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((p) => p === "")) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  // Leading parts are one byte each; the last part fills the remaining bytes.
  if (values.some((v) => v > 255)) return undefined;
  if (last >= 2 ** (8 * (4 - values.length))) return undefined;
  let result = last;
  values.forEach((v, i) => (result += v * 2 ** (8 * (3 - i))));
  return result;
}

/** Strict dotted-quad, as allowed at the tail of an IPv6 literal. */
function parseDottedQuad(text: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const bytes = m.slice(1).map(Number);
  if (bytes.some((b) => b > 255)) return undefined;
  return bytes.reduce((acc, b) => acc * 256 + b, 0);
}

/** IPv6 as eight 16-bit groups; accepts `::`, an embedded dotted IPv4 tail and a %zone. */
function parseIPv6(text: string): number[] | undefined {
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  if (!/^[0-9a-f:.]+$/i.test(text)) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const toGroups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (piece.includes(".")) {
        if (i !== pieces.length - 1) return undefined;
        const v4 = parseDottedQuad(piece);
        if (v4 === undefined) return undefined;
        groups.push(Math.floor(v4 / 65536), v4 % 65536);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(piece)) return undefined;
        groups.push(parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = toGroups(halves[0]!);
  const tail = halves.length === 2 ? toGroups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  if (head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

/** RFC 5952 text (same as WHATWG URL): lowercase hex, longest run of ≥2 zero groups as `::`. */
function formatIPv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  const left = hex.slice(0, bestStart).join(":");
  const right = hex.slice(bestStart + bestLength).join(":");
  return `${left}::${right}`;
}

type Parsed = { family: 4; value: number } | { family: 6; groups: number[] };

function parseLiteral(host: string): Parsed | undefined {
  let text = host.trim();
  if (text.startsWith("[") && text.endsWith("]")) {
    const groups = parseIPv6(text.slice(1, -1));
    return groups ? { family: 6, groups } : undefined;
  }
  if (text.endsWith(".") && !text.includes(":")) text = text.slice(0, -1); // "127.0.0.1."
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  if (!text.includes(":")) return undefined;
  const groups = parseIPv6(text);
  return groups ? { family: 6, groups } : undefined;
}

/** The canonical IP when `host` is an IP literal in any spelling, else undefined. */
export function normalizeHostLiteral(host: string): string | undefined {
  const parsed = parseLiteral(host);
  if (!parsed) return undefined;
  return parsed.family === 4 ? formatIPv4(parsed.value) : formatIPv6(parsed.groups);
}

// ---------------------------------------------------------------- classification

const v4 = (a: number, b: number, c: number, d: number) => ((a * 256 + b) * 256 + c) * 256 + d;

/** [network, prefix length] pairs of IPv4 space that must never be reached. */
const FORBIDDEN_V4: Array<[number, number]> = [
  [v4(0, 0, 0, 0), 8], // "this network", includes unspecified 0.0.0.0
  [v4(10, 0, 0, 0), 8], // private
  [v4(100, 64, 0, 0), 10], // CGNAT, includes Alibaba metadata 100.100.100.200
  [v4(127, 0, 0, 0), 8], // loopback
  [v4(169, 254, 0, 0), 16], // link-local, includes cloud metadata 169.254.169.254
  [v4(172, 16, 0, 0), 12], // private
  [v4(192, 0, 0, 0), 24], // IETF protocol assignments
  [v4(192, 168, 0, 0), 16], // private
  [v4(192, 0, 2, 0), 24], // documentation (TEST-NET-1)
  [v4(198, 18, 0, 0), 15], // benchmarking
  [v4(198, 51, 100, 0), 24], // documentation (TEST-NET-2)
  [v4(203, 0, 113, 0), 24], // documentation (TEST-NET-3)
  [v4(224, 0, 0, 0), 4], // multicast
  [v4(240, 0, 0, 0), 4], // reserved, includes broadcast 255.255.255.255
];

function isForbiddenV4(value: number): boolean {
  return FORBIDDEN_V4.some(([net, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(net / 2 ** (32 - bits)));
}

const low32 = (g: number[]) => g[6]! * 65536 + g[7]!;

function isForbiddenV6(g: number[]): boolean {
  const [g0, g1, g2, g3, g4, g5] = g as [number, number, number, number, number, number];
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0xffff) return isForbiddenV4(low32(g)); // ::ffff:a.b.c.d mapped
  if (firstFiveZero && g5 === 0) return true; // ::, ::1 and deprecated ::a.b.c.d compatible — never public
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isForbiddenV4(low32(g)); // NAT64
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true; // local-use NAT64 64:ff9b:1::/48
  if (g0 === 0x2002) return isForbiddenV4(g1 * 65536 + g2); // 6to4 embeds an IPv4 address
  if (g0 === 0x2001 && g1 === 0) return true; // Teredo tunnels to arbitrary IPv4 peers
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7, includes fd00:ec2::254
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // deprecated site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return true; // multicast ff00::/8
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // documentation
  return false;
}

/**
 * Addresses refused besides the fixed ranges: the host's own interfaces (host-addresses.ts),
 * as canonical text (normalizeHostLiteral). Held by the service side and passed in, so that
 * this file stays free of anything but parsing and classification for the runner.
 */
export interface AddressSet {
  has(address: string): boolean;
}

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), else undefined. */
function embeddedV4(g: number[]): number | undefined {
  const firstFiveZero = g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0;
  if (firstFiveZero && g[5] === 0xffff) return low32(g);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return low32(g);
  if (g[0] === 0x2002) return g[1]! * 65536 + g[2]!;
  return undefined;
}

function isHostAddress(parsed: Parsed, hostAddresses: AddressSet): boolean {
  if (parsed.family === 4) return hostAddresses.has(formatIPv4(parsed.value));
  if (hostAddresses.has(formatIPv6(parsed.groups))) return true;
  const inner = embeddedV4(parsed.groups);
  return inner !== undefined && hostAddresses.has(formatIPv4(inner));
}

/**
 * True when connecting to `ip` must be refused: a fixed range above, or one of
 * `hostAddresses` (in any spelling, IPv4 also inside an IPv6 address). Accepts any spelling
 * normalizeHostLiteral accepts. Input that is not an IP address at all is refused too (fail
 * closed): resolve names first, or use guardedLookup.
 */
export function isForbiddenAddress(ip: string, hostAddresses?: AddressSet): boolean {
  const parsed = parseLiteral(ip);
  if (!parsed) return true;
  if (parsed.family === 4 ? isForbiddenV4(parsed.value) : isForbiddenV6(parsed.groups)) return true;
  return hostAddresses !== undefined && isHostAddress(parsed, hostAddresses);
}

// ---------------------------------------------------------------- resolution

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupOptions = { family?: number | "IPv4" | "IPv6"; all?: boolean; hints?: number; verbatim?: boolean; order?: string };

/**
 * A dns.lookup-compatible function (usable as `lookup` of net/http/https/undici) that fails
 * with EgressRefusedError when any resolved address is forbidden. Any forbidden address fails
 * the whole lookup, so a name resolving to a mix cannot be used to reach the private one.
 */
export function guardedLookup(allowPrivate: boolean, hostAddresses?: AddressSet) {
  return function lookup(hostname: string, options: number | LookupOptions | LookupCallback, callback?: LookupCallback): void {
    let opts: LookupOptions;
    if (typeof options === "function") {
      callback = options;
      opts = {};
    } else if (typeof options === "number") {
      opts = { family: options };
    } else {
      opts = { ...(options ?? {}) };
    }
    const done = callback!;
    const wantAll = opts.all === true;
    dns.lookup(hostname, { ...opts, all: true } as dns.LookupAllOptions, (err, addresses) => {
      if (err) return done(err, wantAll ? [] : "");
      if (!allowPrivate) {
        const bad = addresses.find((a) => isForbiddenAddress(a.address, hostAddresses));
        if (bad) return done(new EgressRefusedError(hostname, bad.address) as NodeJS.ErrnoException, wantAll ? [] : "");
      }
      if (wantAll) return done(null, addresses);
      const first = addresses[0];
      if (!first) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        notFound.code = "ENOTFOUND";
        return done(notFound, "");
      }
      done(null, first.address, first.family);
    });
  };
}

/**
 * The rule for hosts written as IP literals, which connect without a DNS lookup (so the
 * guarded lookup never sees them): the refusal when the literal is forbidden, else undefined.
 * Every egress path (service fetches, webhooks, user code) applies it.
 */
export function refusedLiteralHost(host: string, allowPrivate: boolean, hostAddresses?: AddressSet): EgressRefusedError | undefined {
  if (allowPrivate) return undefined;
  const literal = normalizeHostLiteral(host);
  return literal !== undefined && isForbiddenAddress(literal, hostAddresses) ? new EgressRefusedError(host, literal) : undefined;
}

/**
 * For service-side fetches: refuses non-http(s) URLs, forbidden literal hosts and names that
 * resolve to a forbidden address. Connect through guardedLookup as well, because the name may
 * resolve differently by the time the connection is made.
 */
export async function assertEgressAllowed(url: URL, allowPrivate: boolean, hostAddresses?: AddressSet): Promise<void> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`egress only over http or https, not ${url.protocol}`);
  }
  if (allowPrivate) return;
  const host = url.hostname;
  const refused = refusedLiteralHost(host, allowPrivate, hostAddresses);
  if (refused) throw refused;
  if (normalizeHostLiteral(host) !== undefined) return;
  const addresses = await dns.promises.lookup(host, { all: true });
  const bad = addresses.find((a) => isForbiddenAddress(a.address, hostAddresses));
  if (bad) throw new EgressRefusedError(host, bad.address);
}
