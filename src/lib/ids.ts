// Resource ids: a prefix (u_, sc_, dc_, p_, sub_, wh_) and a random URL-safe string.
import { randomFillSync } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
// Bytes of 248 and over are skipped so that every character is equally likely (248 = 4 × 62).
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

// Random bytes are drawn 4 KB at a time: ids are made on every request and every emit, and one
// call to the CSPRNG per character was a measurable part of the ingest path.
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]!;
}

export function randomString(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < UNBIASED_BELOW) out += ALPHABET[byte % ALPHABET.length];
  }
  return out;
}

export type IdPrefix = "u" | "sc" | "dc" | "p" | "sub" | "wh" | "key" | "del" | "att" | "job" | "apn" | "ds" | "run";

/** The id of one HTTP request (x-request-id), for the API and the public endpoints alike. */
export const newRequestId = (): string => `req_${randomString(12)}`;

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomString(16)}`;
}

// Digits in ASCII order, so that ids of later milliseconds sort after earlier ones.
const SORTED_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const TIME_CHARS = 8; // 62^8 ms: past the year 8000

/**
 * An id that starts with its creation time: rows made together sit together in the primary
 * key's index, so inserting, updating and deleting a batch of recent ones (deliveries, their
 * attempts, queue jobs) touches the few pages at its end instead of one random page per row,
 * and a commit writes that much less. Same shape and length as `newId`.
 */
export function newTimeOrderedId(prefix: IdPrefix, ms = Date.now()): string {
  return `${timeOrderedIdStart(prefix, ms)}${randomString(16 - TIME_CHARS)}`;
}

/** What every time-ordered id made at `ms` starts with; ids made later sort after it. */
export function timeOrderedIdStart(prefix: IdPrefix, ms: number): string {
  let time = "";
  for (let rest = Math.max(0, Math.floor(ms)), i = 0; i < TIME_CHARS; i++, rest = Math.floor(rest / 62))
    time = SORTED_DIGITS[rest % 62] + time;
  return `${prefix}_${time}`;
}

export function idPrefix(id: string): string | undefined {
  const at = id.indexOf("_");
  return at > 0 ? id.slice(0, at) : undefined;
}

/**
 * A key that stands for something in a URL or an address (an endpoint, an inbox, an account's
 * apphook URL): 24 lower-case letters and digits, about 120 random bits, so it can only be
 * learned, not guessed. Lower-case because some senders change the case of what they pass on.
 */
export const newUrlKey = (): string => randomString(24).toLowerCase();
