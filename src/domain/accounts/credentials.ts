// Credentials in and out of their column. Messages about bad credentials name the problem,
// never a value.
import type { Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { decryptText, encryptText } from "./credential-cipher.js";

const MAX_CREDENTIAL_BYTES = 64 * 1024;

/** `credentials` (or an inline `$auth`) as a JSON object; `where` names it in errors. */
export function checkCredentials(value: unknown, where: string): Record<string, unknown> {
  if (value === undefined || value === null) throw invalid(`${where} is required`);
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(`${where} must be a JSON object`);
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_CREDENTIAL_BYTES)
    throw invalid(`${where} is larger than ${MAX_CREDENTIAL_BYTES / 1024} KB`);
  return value as Record<string, unknown>;
}

function keyOf(ctx: Ctx): Buffer {
  if (!ctx.credentialKey) throw new Error("this context has no credential key");
  return ctx.credentialKey;
}

export function sealCredentials(
  ctx: Ctx,
  accountId: string,
  credentials: Record<string, unknown>,
): { credentials: string; fields: string } {
  return { credentials: encryptText(keyOf(ctx), JSON.stringify(credentials), accountId), fields: JSON.stringify(Object.keys(credentials)) };
}

export function openCredentials(ctx: Ctx, accountId: string, stored: string): Record<string, unknown> {
  const text = decryptText(keyOf(ctx), stored, accountId);
  // The key was checked at start; a row that still does not decrypt was altered.
  if (text === undefined) throw new Error(`the credentials of connected account ${accountId} do not decrypt`);
  return JSON.parse(text) as Record<string, unknown>;
}
