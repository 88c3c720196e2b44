// What one data store record may hold, checked before anything reaches the database, on the API
// and for user code alike: a key of 1 to MAX_KEY_BYTES bytes of text (no NUL: PostgreSQL text
// cannot hold it), a JSON value of at most MAX_VALUE_BYTES, and a TTL of whole or fractional
// seconds up to MAX_TTL_SECONDS. Errors name the limit.
import { invalid, ServiceError } from "../../lib/errors.js";

export const MAX_KEY_BYTES = 512;
export const MAX_VALUE_BYTES = 1024 * 1024;
export const MAX_NAME_CHARACTERS = 256;
/** Ten years: a longer TTL is a mistake, not a plan. */
export const MAX_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

export function checkKey(key: unknown): string {
  if (typeof key !== "string") throw invalid("a data store key must be a string");
  if (key === "") throw invalid("a data store key must not be empty");
  if (key.includes("\u0000")) throw invalid("a data store key must not contain NUL characters");
  const bytes = Buffer.byteLength(key);
  if (bytes > MAX_KEY_BYTES) throw invalid(`a data store key of ${bytes} bytes is over the limit of ${MAX_KEY_BYTES} bytes`);
  return key;
}

/** The value as stored (its JSON text); undefined and functions become null as JSON.stringify would drop them. */
export function encodeValue(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw invalid(`a data store value must be JSON-serialisable: ${(error as Error).message}`);
  }
  json ??= "null";
  if (json.length > MAX_VALUE_BYTES || Buffer.byteLength(json) > MAX_VALUE_BYTES)
    throw new ServiceError(
      "PAYLOAD_TOO_LARGE",
      `a data store value of ${Buffer.byteLength(json)} bytes is over the limit of ${MAX_VALUE_BYTES} bytes`,
    );
  return json;
}

/** A TTL in seconds; null for none. */
export function checkTtl(ttl: unknown): number | null {
  if (ttl === null) return null;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0)
    throw invalid("a data store ttl must be a positive number of seconds, or null for none");
  if (ttl > MAX_TTL_SECONDS) throw invalid(`a data store ttl of ${ttl} seconds is over the limit of ${MAX_TTL_SECONDS} seconds`);
  return ttl;
}

export function checkName(name: unknown): string {
  if (typeof name !== "string" || name.trim() === "") throw invalid("name is required");
  if (name.length > MAX_NAME_CHARACTERS) throw invalid(`name is over the limit of ${MAX_NAME_CHARACTERS} characters`);
  return name;
}
