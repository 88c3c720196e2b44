// One retention pass: deletes finished deliveries (with their attempts) and $logs events older
// than the retention period, in small batches. Each batch is its own short transaction and a
// pause follows it, so ingest and delivery, which share the database (on SQLite its one
// connection), wait at most one batch. Pending deliveries are never touched, whatever their
// age. Queue jobs need nothing: a job's row is deleted when it finishes.
//
// Nothing here adds work to the write paths: deliveries are walked in primary-key order, which
// is creation order (time-ordered ids), up to where they become recent; events are reached
// through the index of each emitter's streams, emitter by emitter (emitter_storage lists them).
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { timeOrderedIdStart } from "../../lib/ids.js";
import type { Ctx } from "../context.js";
import { sweepExpiredRecords } from "../data-stores/expire-records.js";
import { pruneRuns } from "./prune-runs.js";

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneOptions {
  /** Rows one statement may read or delete. */
  batchSize?: number;
  /** Real time to wait after each batch (the clock of the context only dates the rows). */
  pauseMs?: number;
  /** SQLite: frees pages the deleted rows left (Store.freePages); absent on PostgreSQL. */
  freePages?: (maxPages: number) => Promise<number>;
  /** Pages freed per call of freePages. */
  pagesPerStep?: number;
  /** Stops the pass between batches (shutdown). */
  signal?: AbortSignal;
}

export interface PruneCounts {
  deliveries: number;
  attempts: number;
  logEvents: number;
  /** Data store records past their TTL (data-stores/expire-records.ts). */
  expiredRecords: number;
  /** Ended workflow runs (with their steps). */
  runs: number;
  freedPages: number;
  /** Statements that deleted rows; each deleted at most batchSize rows of its table. */
  batches: number;
  ms: number;
}

export type PruneCtx = Pick<Ctx, "db" | "storage" | "clock" | "logger" | "config" | "summaryPages">;

export const DEFAULT_BATCH_SIZE = 250;
export const DEFAULT_PAUSE_MS = 20;
const EMITTERS_PER_LOOKUP = 100;

export async function pruneExpired(ctx: PruneCtx, options: PruneOptions = {}): Promise<PruneCounts> {
  const started = performance.now(); // a duration for the log, not data
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const pause = async () => {
    if (!options.signal?.aborted)
      await sleep(options.pauseMs ?? DEFAULT_PAUSE_MS, undefined, { signal: options.signal }).catch(() => undefined);
  };
  const cutoff = ctx.clock.now() - ctx.config.deliveryRetentionDays * DAY_MS;
  const counts: PruneCounts = { deliveries: 0, attempts: 0, logEvents: 0, runs: 0, expiredRecords: 0, freedPages: 0, batches: 0, ms: 0 };
  await pruneDeliveries(ctx, cutoff, batchSize, counts, pause, options.signal);
  await pruneLogEvents(ctx, cutoff, batchSize, counts, pause, options.signal);
  const runs = await pruneRuns(ctx, cutoff, batchSize, pause, options.signal);
  counts.runs += runs.runs;
  counts.batches += runs.batches;
  counts.expiredRecords = await sweepExpiredRecords(ctx, { batchSize, pause, signal: options.signal });
  if (options.freePages && counts.deliveries + counts.attempts + counts.logEvents + counts.runs + counts.expiredRecords > 0) {
    for (;;) {
      if (options.signal?.aborted) break;
      const freed = await options.freePages(options.pagesPerStep ?? 1000);
      counts.freedPages += freed;
      if (freed === 0) break;
      await pause();
    }
  }
  counts.ms = Math.round(performance.now() - started);
  return counts;
}

async function pruneDeliveries(
  ctx: PruneCtx,
  cutoff: number,
  batchSize: number,
  counts: PruneCounts,
  pause: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  // Time-ordered ids sort before the start of tomorrow's; deliveries made before ids were
  // time-ordered have random ids, most of them after that: walked as a range of their own.
  await pruneDeliveriesFrom(ctx, "", cutoff, batchSize, counts, pause, signal);
  await pruneDeliveriesFrom(ctx, timeOrderedIdStart("del", ctx.clock.now() + DAY_MS), cutoff, batchSize, counts, pause, signal);
}

async function pruneDeliveriesFrom(
  ctx: PruneCtx,
  from: string,
  cutoff: number,
  batchSize: number,
  counts: PruneCounts,
  pause: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  let after = from;
  while (!signal?.aborted) {
    const rows = await ctx.db
      .selectFrom("deliveries")
      .select(["id", "status", "created_at", "updated_at"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(batchSize)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    // A resend makes an old delivery pending again and then finishes it anew: its last
    // change (updated_at), not its creation, says whether it is still of interest.
    const expired = rows.filter((row) => row.status !== "pending" && Number(row.updated_at) < cutoff).map((row) => row.id);
    if (expired.length > 0) {
      await ctx.db.transaction().execute(async (tx) => {
        // Read again under lock: a resend may have made one pending since.
        const locked = await ctx.storage
          .lockForUpdate(
            tx
              .selectFrom("deliveries")
              .select("id")
              .where("id", "in", expired)
              .where("status", "!=", "pending")
              .where("updated_at", "<", cutoff),
          )
          .execute();
        const ids = locked.map((row) => row.id);
        if (ids.length === 0) return;
        const attempts = await tx.deleteFrom("delivery_attempts").where("delivery_id", "in", ids).executeTakeFirst();
        const deliveries = await tx.deleteFrom("deliveries").where("id", "in", ids).executeTakeFirst();
        counts.attempts += Number(attempts.numDeletedRows);
        counts.deliveries += Number(deliveries.numDeletedRows);
        counts.batches++;
      });
      await pause();
    }
    // Ids grow with creation time: once a whole batch is recent, so is everything after it.
    if (rows.length < batchSize || rows.every((row) => Number(row.created_at) >= cutoff)) return;
  }
}

async function pruneLogEvents(
  ctx: PruneCtx,
  cutoff: number,
  batchSize: number,
  counts: PruneCounts,
  pause: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  let after = "";
  while (!signal?.aborted) {
    const emitters = await ctx.db
      .selectFrom("emitter_storage")
      .select("emitter_id")
      .where("emitter_id", ">", after)
      .orderBy("emitter_id")
      .limit(EMITTERS_PER_LOOKUP)
      .execute();
    if (emitters.length === 0) return;
    after = emitters[emitters.length - 1]!.emitter_id;
    const expired = await ctx.db
      .selectFrom("events")
      .select(["emitter_id", sql<number>`count(*)`.as("n")])
      .where(
        "emitter_id",
        "in",
        emitters.map((row) => row.emitter_id),
      )
      .where("stream", "=", "$logs")
      .where("ms", "<", cutoff)
      .groupBy("emitter_id")
      .execute();
    // Emitters go into one statement while their rows fit a batch; a stream holds its newest
    // 100 events, so one emitter alone stays small.
    let group: string[] = [];
    let rowsInGroup = 0;
    for (const [index, row] of expired.entries()) {
      group.push(row.emitter_id);
      rowsInGroup += Number(row.n);
      const next = expired[index + 1];
      if (next && rowsInGroup + Number(next.n) <= batchSize) continue;
      await deleteLogEvents(ctx, group, cutoff, counts);
      group = [];
      rowsInGroup = 0;
      await pause();
      if (signal?.aborted) return;
    }
    if (emitters.length < EMITTERS_PER_LOOKUP) return;
  }
}

async function deleteLogEvents(ctx: PruneCtx, emitterIds: string[], cutoff: number, counts: PruneCounts): Promise<void> {
  // SQLite: cached summary pages of these emitters would still list the deleted events.
  for (const emitterId of emitterIds) ctx.summaryPages.forgetEmitterPages(emitterId);
  const result = await ctx.db
    .deleteFrom("events")
    .where("emitter_id", "in", emitterIds)
    .where("stream", "=", "$logs")
    .where("ms", "<", cutoff)
    .executeTakeFirst();
  counts.logEvents += Number(result.numDeletedRows);
  counts.batches++;
}
