// Dead jobs: a job that used up its attempts leaves the queue for `dead_jobs` (migration 016),
// where the claim never looks, until an operator sends it back. Nothing in the queue retries
// forever: a job that throws every time, or kills its worker every time, ends here. A worker
// moves a job here with buryJob (job-rows.ts).
import type { Kysely } from "kysely";
import type { Database, DeadJobsTable } from "../store/schema.js";
import { paginateByCreation, type Page, type PageRequest } from "../store/paginate.js";
import { enqueueJobs } from "./enqueue.js";

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
    const job = {
      id: dead.id,
      type: dead.type,
      payload: JSON.parse(dead.payload),
      userId: dead.user_id ?? undefined,
      concurrencyKey: dead.concurrency_key ?? undefined,
      createdAt: Number(dead.created_at),
      lastError: dead.last_error,
    };
    await enqueueJobs(tx, [job], now);
    return "revived";
  });
}
