import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("username", "text", (c) => c.notNull().unique())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("plan", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("key_hint", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("webhooks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("name", "text")
    .addColumn("description", "text")
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("signing_secret", "text", (c) => c.notNull())
    .addColumn("previous_secret", "text")
    .addColumn("previous_secret_expires_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhooks_by_user").on("webhooks").columns(["user_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("subscriptions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("listener_id", "text", (c) => c.notNull())
    .addColumn("event_name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("subscriptions_unique", ["user_id", "emitter_id", "listener_id", "event_name"])
    .execute();
  await db.schema.createIndex("subscriptions_by_emitter").on("subscriptions").columns(["emitter_id"]).execute();
  await db.schema.createIndex("subscriptions_by_listener").on("subscriptions").columns(["listener_id"]).execute();

  await db.schema
    .createTable("auto_subscriptions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("listener_id", "text", (c) => c.notNull())
    .addColumn("event_name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("auto_subscriptions_unique", ["user_id", "listener_id", "event_name"])
    .execute();

  await db.schema
    .createTable("usage_daily")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("invocations", "bigint", (c) => c.notNull())
    .addColumn("compute_ms", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("usage_daily_pk", ["user_id", "day"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["usage_daily", "auto_subscriptions", "subscriptions", "webhooks", "api_keys", "users"]) {
    await db.schema.dropTable(table).execute();
  }
}
