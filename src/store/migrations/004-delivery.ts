// The durable job queue (src/queue) and webhook/listener deliveries with their attempts.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  // One row per pending job; a job row is deleted when its handler finishes. A claim sets
  // lease_token/locked_until; an expired lease makes the job claimable again.
  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    // Jobs sharing a key (e.g. one webhook endpoint) run at most N at a time per worker.
    .addColumn("concurrency_key", "text")
    .addColumn("run_at", "bigint", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_token", "text")
    .addColumn("locked_until", "bigint")
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_due").on("jobs").columns(["type", "run_at"]).execute();

  // A delivery of one event to one listener; it keeps its own copy of the event, because
  // events are trimmed to the last 100 per stream and may be deleted.
  await db.schema
    .createTable("deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("listener_id", "text", (c) => c.notNull())
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("stream", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("hops", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint")
    .addColumn("last_attempt_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("deliveries_by_listener").on("deliveries").columns(["listener_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("delivery_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("delivery_id", "text", (c) => c.notNull().references("deliveries.id").onDelete("cascade"))
    .addColumn("attempted_at", "bigint", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("response_excerpt", "text")
    .addColumn("error", "text")
    .execute();
  await db.schema.createIndex("delivery_attempts_by_delivery").on("delivery_attempts").columns(["delivery_id", "attempted_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("delivery_attempts").execute();
  await db.schema.dropTable("deliveries").execute();
  await db.schema.dropTable("jobs").execute();
}
