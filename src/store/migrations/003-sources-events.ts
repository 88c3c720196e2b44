// Sources (deployed components), their $.service.db and dedupe state, timers, and the events
// every emitter (source or workflow) stores on its streams.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("sources")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("component_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("name_slug", "text", (c) => c.notNull())
    // The values the user configured, as given (JSON); views add timer and HTTP shapes.
    .addColumn("configured_props", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("endpoint_key", "text", (c) => c.unique())
    .addColumn("custom_response", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("timer_interval_seconds", "integer")
    .addColumn("timer_cron", "text")
    .addColumn("next_run_at", "bigint")
    .addColumn("state", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("dedupe_state", "text", (c) => c.notNull().defaultTo("{}"))
    // Serialises executions of one source across processes: a lease, taken by compare-and-set.
    .addColumn("run_lock_until", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sources_by_user").on("sources").columns(["user_id", "created_at", "id"]).execute();
  await db.schema.createIndex("sources_due").on("sources").columns(["next_run_at"]).where(sql.ref("next_run_at"), "is not", null).execute();

  await db.schema
    .createTable("events")
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("ms", "bigint", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("stream", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("events_pk", ["emitter_id", "ms", "seq"])
    .execute();
  await db.schema.createIndex("events_by_stream").on("events").columns(["emitter_id", "stream", "ms", "seq"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("events").execute();
  await db.schema.dropTable("sources").execute();
}
