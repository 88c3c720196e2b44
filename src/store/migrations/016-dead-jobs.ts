// Dead jobs: a job that used up its attempts (SLUICE_JOB_MAX_ATTEMPTS) leaves the queue for a
// table of its own, where an operator finds it and may send it back. Kept apart from `jobs`,
// the claim and next-due queries never see it: they stay as they were, and a pile of dead
// jobs costs the hot path nothing.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("dead_jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("concurrency_key", "text")
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("died_at", "bigint", (c) => c.notNull())
    .execute();
  // The admin list pages newest first by (created_at, id), like every list.
  await db.schema.createIndex("dead_jobs_by_creation").on("dead_jobs").columns(["created_at", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("dead_jobs").execute();
}
