// Standard Webhooks secrets: "whsec_" and base64 of 24 random bytes.
import { randomBytes } from "node:crypto";

export function generateSigningSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}
