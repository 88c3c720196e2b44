// Changing a data store's records. Each change is one transaction that first takes the store's
// row (an UPDATE of it: a row lock on PostgreSQL, the one writer on SQLite), so changes to one
// store never interleave: a record's bytes and the store's total move together, and two runs
// setting one key leave one whole value, the last written. The store's row also proves it is
// the account's: another account's store is "record not found".
import type { Transaction } from "kysely";
import { notFound, ServiceError } from "../../lib/errors.js";
import type { Database } from "../../store/schema.js";
import type { Ctx } from "../context.js";

/** `keep`: a live record keeps its expiry (Pipedream's set without a ttl); a new one has none. */
export type TtlChange = number | null | "keep";

async function inStoreTransaction<T>(
  ctx: Pick<Ctx, "db" | "clock">,
  userId: string,
  storeId: string,
  work: (tx: Transaction<Database>, now: number) => Promise<{ result: T; bytesDelta: number }>,
): Promise<T> {
  return ctx.db.transaction().execute(async (tx) => {
    const locked = await tx
      .updateTable("data_stores")
      .set((eb) => ({ bytes: eb.ref("bytes") }))
      .where("id", "=", storeId)
      .where("user_id", "=", userId)
      .returning("id")
      .executeTakeFirst();
    if (!locked) throw notFound();
    const { result, bytesDelta } = await work(tx, ctx.clock.now());
    if (bytesDelta !== 0)
      await tx
        .updateTable("data_stores")
        .set((eb) => ({ bytes: eb("bytes", "+", bytesDelta) }))
        .where("id", "=", storeId)
        .execute();
    return result;
  });
}

/** Sets `key` to the value's JSON text. Refused past the account's storage quota when it grows. */
export async function setRecord(
  ctx: Ctx,
  input: { userId: string; storeId: string; key: string; json: string; ttl: TtlChange },
): Promise<void> {
  const { userId, storeId, key, json, ttl } = input;
  const bytes = Buffer.byteLength(key) + Buffer.byteLength(json);
  // Read before the transaction: on SQLite it holds the one connection the read would wait for.
  const used = await ctx.eventLimits.storageUsed(userId);
  const quota = ctx.eventLimits.quotaBytes;
  await inStoreTransaction(ctx, userId, storeId, async (tx, now) => {
    const old = await tx
      .selectFrom("data_store_records")
      .select(["bytes", "expires_at"])
      .where("store_id", "=", storeId)
      .where("key", "=", key)
      .executeTakeFirst();
    const bytesDelta = bytes - Number(old?.bytes ?? 0);
    if (bytesDelta > 0 && used + bytesDelta > quota)
      throw new ServiceError(
        "LIMIT_EXCEEDED",
        `the account's storage quota of ${quota} bytes (SLUICE_ACCOUNT_STORAGE_MB) is used up; the record was not stored`,
        { retryAfterSeconds: 60 },
      );
    const oldLive = old !== undefined && (old.expires_at === null || Number(old.expires_at) > now);
    const expiresAt = ttl === "keep" ? (oldLive ? old.expires_at : null) : ttl === null ? null : now + Math.round(ttl * 1000);
    const row = { value: json, bytes, updated_at: now, expires_at: expiresAt };
    await tx
      .insertInto("data_store_records")
      .values({ store_id: storeId, key, ...row })
      .onConflict((oc) => oc.columns(["store_id", "key"]).doUpdateSet(row))
      .execute();
    return { result: undefined, bytesDelta };
  });
}

/** Deletes `key`; whether a live record was there. */
export async function deleteRecord(ctx: Ctx, input: { userId: string; storeId: string; key: string }): Promise<boolean> {
  const { userId, storeId, key } = input;
  return inStoreTransaction(ctx, userId, storeId, async (tx, now) => {
    const old = await tx
      .deleteFrom("data_store_records")
      .where("store_id", "=", storeId)
      .where("key", "=", key)
      .returning(["bytes", "expires_at"])
      .executeTakeFirst();
    const live = old !== undefined && (old.expires_at === null || Number(old.expires_at) > now);
    return { result: live, bytesDelta: -Number(old?.bytes ?? 0) };
  });
}

/** Deletes every record of the store. */
export async function clearRecords(ctx: Ctx, input: { userId: string; storeId: string }): Promise<void> {
  const { userId, storeId } = input;
  await inStoreTransaction(ctx, userId, storeId, async (tx) => {
    await tx.deleteFrom("data_store_records").where("store_id", "=", storeId).execute();
    const store = await tx.selectFrom("data_stores").select("bytes").where("id", "=", storeId).executeTakeFirstOrThrow();
    return { result: undefined, bytesDelta: -Number(store.bytes) };
  });
}

/** Gives a live record a new expiry (`null`: none); whether there was one to change. */
export async function setRecordTtl(
  ctx: Ctx,
  input: { userId: string; storeId: string; key: string; ttl: number | null },
): Promise<boolean> {
  const { userId, storeId, key, ttl } = input;
  return inStoreTransaction(ctx, userId, storeId, async (tx, now) => {
    const changed = await tx
      .updateTable("data_store_records")
      .set({ expires_at: ttl === null ? null : now + Math.round(ttl * 1000) })
      .where("store_id", "=", storeId)
      .where("key", "=", key)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .executeTakeFirst();
    return { result: Number(changed.numUpdatedRows) > 0, bytesDelta: 0 };
  });
}

/** Deletes up to `limit` records of the store that expired by `now`; how many. */
export async function deleteExpiredRecords(
  ctx: Pick<Ctx, "db" | "clock">,
  input: { userId: string; storeId: string; limit: number },
): Promise<number> {
  const { userId, storeId, limit } = input;
  return inStoreTransaction(ctx, userId, storeId, async (tx, now) => {
    const expired = await tx
      .selectFrom("data_store_records")
      .select("key")
      .where("store_id", "=", storeId)
      .where("expires_at", "<=", now)
      .limit(limit)
      .execute();
    if (expired.length === 0) return { result: 0, bytesDelta: 0 };
    const deleted = await tx
      .deleteFrom("data_store_records")
      .where("store_id", "=", storeId)
      .where(
        "key",
        "in",
        expired.map((row) => row.key),
      )
      .where("expires_at", "<=", now)
      .returning("bytes")
      .execute();
    return { result: deleted.length, bytesDelta: -deleted.reduce((sum, row) => sum + Number(row.bytes), 0) };
  });
}
