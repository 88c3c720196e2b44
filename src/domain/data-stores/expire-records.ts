// The sweep of expired data store records: reads never return them (record-reads.ts), and this
// removes them and gives their bytes back to the account's storage. It runs with each retention
// pass, a batch per store at a time, each its own short transaction.
import type { Ctx } from "../context.js";
import { ServiceError } from "../../lib/errors.js";
import { deleteExpiredRecords } from "./record-writes.js";

const STORES_PER_LOOKUP = 100;

/** Deletes every record expired by the clock's now, `batchSize` at a time; how many. */
export async function sweepExpiredRecords(
  ctx: Pick<Ctx, "db" | "clock">,
  options: { batchSize?: number; pause?: () => Promise<void>; signal?: AbortSignal } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 250;
  let swept = 0;
  while (!options.signal?.aborted) {
    const stores = await ctx.db
      .selectFrom("data_store_records")
      .innerJoin("data_stores", "data_stores.id", "data_store_records.store_id")
      .select(["data_stores.id", "data_stores.user_id"])
      .distinct()
      .where("data_store_records.expires_at", "<=", ctx.clock.now())
      .limit(STORES_PER_LOOKUP)
      .execute();
    if (stores.length === 0) break;
    let progress = 0;
    for (const store of stores) {
      if (options.signal?.aborted) break;
      const deleted = await deleteExpiredRecords(ctx, { userId: store.user_id, storeId: store.id, limit: batchSize }).catch((error) => {
        if (error instanceof ServiceError && error.code === "NOT_FOUND") return 0; // the store went meanwhile
        throw error;
      });
      swept += deleted;
      progress += deleted;
      await options.pause?.();
    }
    if (progress === 0) break;
  }
  return swept;
}
