// The queue's next-due query skips the jobs of concurrency keys a worker runs its limit of
// (a slow webhook's backlog) by index ranges around those keys (src/queue/next-due-query.ts).
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("jobs_by_key").on("jobs").columns(["type", "concurrency_key", "run_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("jobs_by_key").execute();
}
