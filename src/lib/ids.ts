// Resource ids: a prefix (u_, sc_, dc_, p_, sub_, wh_) and a random URL-safe string.
import { randomInt } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function randomString(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
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
