// Writing a delivery's outcome: its attempts (for visibility) and its status.
import { sql, type Kysely } from "kysely";
import { createBatcher, type Batcher } from "../queue/batcher.js";
import { completeJobs } from "../queue/job-rows.js";
import type { JobLease } from "../queue/job-queue.js";
import { storageOf } from "../store/storage-dialect.js";
import { rowInserter } from "../store/insert-rows.js";
import { newTimeOrderedId } from "../lib/ids.js";
import type { Database, DeliveriesTable } from "../store/schema.js";

export const ATTEMPT_EXCERPT_CHARS = 2048;
/**
 * Under load, successes wait this long for others to share their commit: nothing waits on
 * them (the endpoint has answered and its place is already free), and each commit then
 * carries a few dozen deliveries instead of a dozen. A lone success is written at once.
 */
const SUCCESS_LINGER_MS = 5;

export interface AttemptRecord {
  attemptedAt: number;
  statusCode?: number;
  durationMs: number;
  responseExcerpt?: string;
  error?: string;
}

function attemptRow(deliveryId: string, attempt: AttemptRecord) {
  return {
    id: newTimeOrderedId("att"),
    delivery_id: deliveryId,
    attempted_at: attempt.attemptedAt,
    status_code: attempt.statusCode ?? null,
    duration_ms: Math.max(0, Math.round(attempt.durationMs)),
    response_excerpt: attempt.responseExcerpt === undefined ? null : attempt.responseExcerpt.slice(0, ATTEMPT_EXCERPT_CHARS),
    error: attempt.error === undefined ? null : attempt.error.slice(0, ATTEMPT_EXCERPT_CHARS),
  };
}

const insertAttempts = rowInserter("delivery_attempts", {
  id: true,
  delivery_id: true,
  attempted_at: true,
  status_code: true,
  duration_ms: true,
  response_excerpt: true,
  error: true,
});

export async function recordAttempt(db: Kysely<Database>, deliveryId: string, attempt: AttemptRecord): Promise<void> {
  await db.insertInto("delivery_attempts").values(attemptRow(deliveryId, attempt)).execute();
}

export interface Success {
  deliveryId: string;
  attempt: AttemptRecord;
  /** The delivery's queue job, removed together with the records. */
  job?: JobLease;
}

/**
 * Successful deliveries are the common case under load: their attempt rows, status changes
 * and the removal of their jobs are written in groups, and commit together, so a crash
 * leaves either all three (done) or none (the job runs again: at least once).
 */
export function successRecorder(db: Kysely<Database>, now: () => number): Batcher<Success> {
  return createBatcher(
    async (items) => {
      const attempts = items.map((item) => attemptRow(item.deliveryId, item.attempt));
      const ids = items.map((item) => item.deliveryId);
      const jobs = items.flatMap((item) => (item.job ? [item.job] : []));
      const at = now();
      const succeeded = {
        status: "succeeded" as const,
        attempts: sql<number>`attempts + 1`,
        last_attempt_at: at,
        next_attempt_at: null,
        updated_at: at,
      };
      // PostgreSQL: one statement (data-modifying CTEs, one round trip); SQLite: one transaction.
      if (storageOf(db).writesInWith) {
        const recorded = db.with("recorded", (qc) => qc.insertInto("delivery_attempts").values(attempts));
        if (jobs.length === 0) {
          await recorded.updateTable("deliveries").set(succeeded).where("id", "in", ids).execute();
          return;
        }
        await recorded
          .with("completed", (qc) =>
            qc
              .deleteFrom("jobs")
              .where(
                "id",
                "in",
                jobs.map((job) => job.id),
              )
              .where("lease_token", "in", [...new Set(jobs.map((job) => job.token))]),
          )
          .updateTable("deliveries")
          .set(succeeded)
          .where("id", "in", ids)
          .execute();
        return;
      }
      await db.transaction().execute(async (tx) => {
        await insertAttempts.execute(tx, attempts);
        await tx.updateTable("deliveries").set(succeeded).where("id", "in", ids).execute();
        await completeJobs(tx, jobs);
      });
    },
    200,
    SUCCESS_LINGER_MS,
  );
}

export async function setDeliveryState(
  db: Kysely<Database>,
  delivery: DeliveriesTable,
  change: { status: DeliveriesTable["status"]; attempts: number; lastAttemptAt: number | null; nextAttemptAt: number | null; now: number },
): Promise<void> {
  await db
    .updateTable("deliveries")
    .set({
      status: change.status,
      attempts: change.attempts,
      last_attempt_at: change.lastAttemptAt,
      next_attempt_at: change.nextAttemptAt,
      updated_at: change.now,
    })
    .where("id", "=", delivery.id)
    .execute();
}
