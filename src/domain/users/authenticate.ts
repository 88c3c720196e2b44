import type { Actor, Ctx } from "../context.js";
import { ServiceError } from "../../lib/errors.js";
import { hashApiKey, hashesEqual, isWellFormedApiKey } from "./api-keys.js";
import { AUTH_CACHE_TTL_MS } from "./auth-cache.js";

const unauthorized = (message = "missing or invalid API key") => new ServiceError("UNAUTHORIZED", message);

/** last_used_at is written at most this often per key and process, not on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The account of a key that authenticated within the last few seconds (auth-cache.ts), found
 * without a database read or a promise: the hot API reads answer from here. Only keys that
 * passed `authenticate` are cached, so a key found here is well formed and was valid then.
 */
export function recentlyAuthenticated(ctx: Pick<Ctx, "authCache">, apiKey: string | undefined, nowMs: number): Actor | undefined {
  return apiKey ? ctx.authCache.get(apiKey, nowMs) : undefined;
}

/** Resolves a bearer API key to the account it belongs to. */
export async function authenticate({ ctx, apiKey }: { ctx: Ctx; apiKey: string | undefined }): Promise<Actor> {
  if (!apiKey || !isWellFormedApiKey(apiKey)) throw unauthorized();
  const now = ctx.clock.now();
  const cached = recentlyAuthenticated(ctx, apiKey, now);
  if (cached) return cached;
  const hash = hashApiKey(apiKey);
  const row = await ctx.db
    .selectFrom("api_keys")
    .select(["id", "user_id", "key_hash", "expires_at", "last_used_at"])
    .where("key_hash", "=", hash)
    .executeTakeFirst();
  if (!row || !hashesEqual(row.key_hash, hash)) throw unauthorized();
  const expiresAt = row.expires_at === null ? undefined : Number(row.expires_at);
  if (expiresAt !== undefined && expiresAt <= now) throw unauthorized("API key expired");
  const lastUsed = row.last_used_at === null ? undefined : Number(row.last_used_at);
  if (lastUsed === undefined || now - lastUsed >= LAST_USED_RESOLUTION_MS) {
    await ctx.db.updateTable("api_keys").set({ last_used_at: now }).where("id", "=", row.id).execute();
  }
  const actor: Actor = { userId: row.user_id, keyId: row.id };
  ctx.authCache.set(apiKey, actor, Math.min(now + AUTH_CACHE_TTL_MS, expiresAt ?? Infinity));
  return actor;
}
