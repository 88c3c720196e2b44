// Standard Webhooks signatures: "v1," + base64 HMAC-SHA256 of "id.timestamp.body", keyed with
// the base64-decoded part of a "whsec_…" secret. Several secrets sign side by side (rotation).
import { createHmac } from "node:crypto";

export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated. */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signPayload(secret, id, timestampSeconds, body)).join(" ");
}
