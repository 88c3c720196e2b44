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

export type IdPrefix = "u" | "sc" | "dc" | "p" | "sub" | "wh" | "key" | "del" | "att" | "job";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomString(16)}`;
}

export function idPrefix(id: string): string | undefined {
  const at = id.indexOf("_");
  return at > 0 ? id.slice(0, at) : undefined;
}
