// Dead jobs: a job that used up its attempts leaves the queue for `dead_jobs` (migration 016),
// where the claim never looks, until an operator sends it back. Nothing in the queue retries
// forever: a job that throws every time, or kills its worker every time, ends here.
import { sql, type Kysely } from "kysely";
import type { Database, DeadJobsTable, JobsTable } from "../store/schema.js";
import { paginateByCreation, type Page, type PageRequest } from "../store/paginate.js";
import { enqueueRows } from "./enqueue.js";

/**
 * Moves a job this worker holds (its lease `token`) to the dead jobs, with the reason it died.
 * Whether it did: a job whose lease was lost meanwhile belongs to its new holder.
 */
export async function buryJob(db: Kysely<Database>, job: { id: string; token: string }, lastError: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    // Typed casts: PostgreSQL would take a bare parameter in the select list for text.
    const inserted = await tx
      .insertInto("dead_jobs")
      .columns(["id", "type", "payload", "user_id", "concurrency_key", "attempts", "last_error", "created_at", "died_at"])
      .expression(
        tx
          .selectFrom("jobs")
          .select(["id", "type", "payload", "user_id", "concurrency_key", "attempts", sql<string>`cast(${lastError} as text)`.as("last_error"), "created_at", sql<number>`cast(${now} as bigint)`.as("died_at")])
          .where("id", "=", job.id)
          .where("lease_token", "=", job.token),
      )
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    await tx.deleteFrom("jobs").where("id", "=", job.id).where("lease_token", "=", job.token).execute();
    return true;
  });
}

/** The dead jobs, newest first by the time they were enqueued. */
export function listDeadJobRows(db: Kysely<Database>, page: PageRequest): Promise<Page<DeadJobsTable>> {
  return paginateByCreation(db.selectFrom("dead_jobs").selectAll(), "dead_jobs", page);
}

/**
 * Sends a dead job back to the queue with its attempts reset, due now, under its own id, and
 * wakes the workers as an enqueue does. "dead" when it was; otherwise whether the id names a
 * job still in the queue ("queued") or nothing ("unknown").
 */
export async function reviveJob(db: Kysely<Database>, id: string, now: number): Promise<"revived" | "queued" | "unknown"> {
  return db.transaction().execute(async (tx) => {
    const dead = await tx.deleteFrom("dead_jobs").where("id", "=", id).returningAll().executeTakeFirst();
    if (!dead) return (await tx.selectFrom("jobs").select("id").where("id", "=", id).executeTakeFirst()) ? "queued" : "unknown";
    const row: JobsTable = {
      id: dead.id,
      type: dead.type,
      payload: dead.payload,
      user_id: dead.user_id,
      concurrency_key: dead.concurrency_key,
      run_at: now,
      attempts: 0,
      lease_token: null,
      locked_until: null,
      last_error: dead.last_error,
      created_at: Number(dead.created_at),
    };
    await enqueueRows(tx, [row], now);
    return "revived";
  });
}
