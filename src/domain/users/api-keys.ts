// API keys are random, carry a prefix secret scanners can recognise, and are kept only as a
// SHA-256 hash. A key has 238 bits of entropy, so a fast hash is enough (no password KDF).
import { createHash, timingSafeEqual } from "node:crypto";
import { randomString } from "../../lib/ids.js";

export const API_KEY_PREFIX = "sk_sluice_";
const KEY_PATTERN = /^sk_sluice_[A-Za-z0-9]{40}$/;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomString(40);
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What `GET /users/me` shows: the prefix and the last four characters. */
export function maskApiKey(hint: string): string {
  return `${API_KEY_PREFIX}${"*".repeat(36)}${hint}`;
}
