// An account's API keys: made, listed (masked) and revoked by the account itself; rotated by
// an operator (`sluice users rotate-key`). Revoking deletes the key's row; the last key of an
// account cannot be revoked, so an account is never locked out of the API.
import type { Kysely } from "kysely";
import type { Actor, Ctx } from "../context.js";
import { invalid, notFound, ServiceError } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import type { Database } from "../../store/schema.js";
import { apiKeyView, type ApiKeyView } from "./api-key-view.js";
import { generateApiKey, hashApiKey } from "./api-keys.js";

export interface NewApiKeyInput {
  name?: string;
  /** Unix seconds; the key is refused from then on. */
  expires_at?: number;
}

export async function createApiKey({ ctx, actor, input }: { ctx: Ctx; actor: Actor; input: NewApiKeyInput }): Promise<ApiKeyView> {
  const now = ctx.clock.now();
  const expiresAt = input.expires_at === undefined ? null : input.expires_at * 1000;
  if (expiresAt !== null && expiresAt <= now) throw invalid("expires_at must be in the future");
  return insertApiKey(ctx.db, { userId: actor.userId, name: input.name ?? null, expiresAt, nowMs: now });
}

export async function listApiKeys({ ctx, actor, page }: { ctx: Ctx; actor: Actor; page: PageRequest }): Promise<Page<ApiKeyView>> {
  const query = ctx.db
    .selectFrom("api_keys")
    .select(["id", "name", "key_hint", "created_at", "expires_at", "last_used_at"])
    .where("user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "api_keys", page);
  return { page_info: result.page_info, data: result.data.map((row) => apiKeyView(row)) };
}

export async function revokeApiKey({ ctx, actor, input }: { ctx: Ctx; actor: Actor; input: { id: string } }): Promise<void> {
  await ctx.db.transaction().execute(async (db) => {
    // Locks the account's keys (PostgreSQL), so two revocations at once cannot remove both of the last two.
    const keys = ctx.storage.lockForUpdate(db.selectFrom("api_keys").select("id").where("user_id", "=", actor.userId));
    const ids = (await keys.execute()).map((row) => row.id);
    if (!ids.includes(input.id)) throw notFound();
    if (ids.length === 1) throw new ServiceError("CONFLICT", "this is the account's last API key; create another before revoking it");
    await db.deleteFrom("api_keys").where("id", "=", input.id).execute();
  });
  ctx.authCache.forgetKey(input.id);
}

/** The account whose keys an operator rotates: by id, or by its username. */
export type RotatedAccount = { userId: string } | { username: string };

/** A new key for the account, every other key revoked; returns the new key in full. */
export async function rotateApiKey({ ctx, input }: { ctx: Ctx; input: RotatedAccount }): Promise<ApiKeyView> {
  const now = ctx.clock.now();
  const created = await ctx.db.transaction().execute(async (db) => {
    const byId = "userId" in input;
    const user = await db
      .selectFrom("users")
      .select("id")
      .where(byId ? "id" : "username", "=", byId ? input.userId : input.username)
      .executeTakeFirst();
    if (!user) throw new ServiceError("NOT_FOUND", byId ? `no account with id ${input.userId}` : `no account named "${input.username}"`);
    const view = await insertApiKey(db, { userId: user.id, name: "rotated", expiresAt: null, nowMs: now });
    await db.deleteFrom("api_keys").where("user_id", "=", user.id).where("id", "!=", view.id).execute();
    return view;
  });
  return created;
}

async function insertApiKey(
  db: Kysely<Database>,
  key: { userId: string; name: string | null; expiresAt: number | null; nowMs: number },
): Promise<ApiKeyView> {
  const apiKey = generateApiKey();
  const row = {
    id: newId("key"),
    user_id: key.userId,
    key_hash: hashApiKey(apiKey),
    key_hint: apiKey.slice(-4),
    name: key.name,
    expires_at: key.expiresAt,
    last_used_at: null,
    created_at: key.nowMs,
  };
  await db.insertInto("api_keys").values(row).execute();
  return apiKeyView(row, apiKey);
}
