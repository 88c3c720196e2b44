// Credentials at rest: AES-256-GCM with a random 12-byte nonce. The text stored is
// "v1." + base64(nonce ‖ tag ‖ ciphertext); the associated data binds it to its row, so a
// ciphertext copied to another row does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1.";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function encryptText(key: Buffer, plaintext: string, boundTo: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(boundTo, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return VERSION + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64");
}

/** The plaintext, or undefined when the key or the binding is wrong (or the text was altered). */
export function decryptText(key: Buffer, stored: string, boundTo: string): string | undefined {
  if (!stored.startsWith(VERSION)) return undefined;
  const raw = Buffer.from(stored.slice(VERSION.length), "base64");
  if (raw.length < NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(boundTo, "utf8"));
    decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
