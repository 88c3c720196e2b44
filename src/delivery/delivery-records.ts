// Writing a delivery's outcome: its attempts (for visibility) and its status.
import { sql, type Kysely } from "kysely";
import { createBatcher, type Batcher } from "../queue/batcher.js";
import { isPostgres } from "../queue/enqueue.js";
import { newId } from "../lib/ids.js";
import type { Database, DeliveriesTable } from "../store/schema.js";

export const ATTEMPT_EXCERPT_CHARS = 2048;

export interface AttemptRecord {
  attemptedAt: number;
  statusCode?: number;
  durationMs: number;
  responseExcerpt?: string;
  error?: string;
}

function attemptRow(deliveryId: string, attempt: AttemptRecord) {
  return {
    id: newId("att"),
    delivery_id: deliveryId,
    attempted_at: attempt.attemptedAt,
    status_code: attempt.statusCode ?? null,
    duration_ms: Math.max(0, Math.round(attempt.durationMs)),
    response_excerpt: attempt.responseExcerpt === undefined ? null : attempt.responseExcerpt.slice(0, ATTEMPT_EXCERPT_CHARS),
    error: attempt.error === undefined ? null : attempt.error.slice(0, ATTEMPT_EXCERPT_CHARS),
  };
}

export async function recordAttempt(db: Kysely<Database>, deliveryId: string, attempt: AttemptRecord): Promise<void> {
  await db.insertInto("delivery_attempts").values(attemptRow(deliveryId, attempt)).execute();
}

/**
 * Successful deliveries are the common case under load: their attempt rows and status
 * changes are written in groups (two statements per group instead of two per delivery).
 */
export function successRecorder(db: Kysely<Database>, now: () => number): Batcher<{ deliveryId: string; attempt: AttemptRecord }> {
  return createBatcher(async (items) => {
    const attempts = items.map((item) => attemptRow(item.deliveryId, item.attempt));
    const ids = items.map((item) => item.deliveryId);
    const at = now();
    const succeeded = { status: "succeeded" as const, attempts: sql<number>`attempts + 1`, last_attempt_at: at, next_attempt_at: null, updated_at: at };
    // Both writes commit together: one statement on PostgreSQL (a data-modifying CTE, one
    // round trip), one transaction on SQLite (one commit).
    if (isPostgres(db)) {
      await db
        .with("recorded", (qc) => qc.insertInto("delivery_attempts").values(attempts))
        .updateTable("deliveries")
        .set(succeeded)
        .where("id", "in", ids)
        .execute();
      return;
    }
    await db.transaction().execute(async (tx) => {
      await tx.insertInto("delivery_attempts").values(attempts).execute();
      await tx.updateTable("deliveries").set(succeeded).where("id", "in", ids).execute();
    });
  }, 200);
}

export async function setDeliveryState(
  db: Kysely<Database>,
  delivery: DeliveriesTable,
  change: { status: DeliveriesTable["status"]; attempts: number; lastAttemptAt: number | null; nextAttemptAt: number | null; now: number },
): Promise<void> {
  await db
    .updateTable("deliveries")
    .set({ status: change.status, attempts: change.attempts, last_attempt_at: change.lastAttemptAt, next_attempt_at: change.nextAttemptAt, updated_at: change.now })
    .where("id", "=", delivery.id)
    .execute();
}
