// Standard Webhooks signatures: "v1," + base64 HMAC-SHA256 of "id.timestamp.body", keyed with
// the base64-decoded part of a "whsec_…" secret. Several secrets sign side by side (rotation).
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { BoundedCache } from "../lib/bounded-cache.js";

export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

// Every delivery is signed: decoding its webhook's secret and making a key of it each time was
// a measurable part of the sender's CPU. Secrets are few (one or two per webhook); the bound
// only guards against an unexpected number of them.
const keys = new BoundedCache<string, KeyObject>(1024);
const makeKey = (secret: string) => createSecretKey(secretKey(secret));

export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", keys.get(secret, makeKey)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated. */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signPayload(secret, id, timestampSeconds, body)).join(" ");
}
