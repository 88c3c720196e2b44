import type { Actor, Ctx } from "../context.js";
import { ServiceError } from "../../lib/errors.js";
import { hashApiKey, hashesEqual, isWellFormedApiKey } from "./api-keys.js";

const unauthorized = () => new ServiceError("UNAUTHORIZED", "missing or invalid API key");

/** Resolves a bearer API key to the account it belongs to. */
export async function authenticate({ ctx, apiKey }: { ctx: Ctx; apiKey: string | undefined }): Promise<Actor> {
  if (!apiKey || !isWellFormedApiKey(apiKey)) throw unauthorized();
  const hash = hashApiKey(apiKey);
  const row = await ctx.db.selectFrom("api_keys").select(["user_id", "key_hash"]).where("key_hash", "=", hash).executeTakeFirst();
  if (!row || !hashesEqual(row.key_hash, hash)) throw unauthorized();
  return { userId: row.user_id };
}
