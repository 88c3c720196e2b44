// Workflows: ordered code steps, an HTTP endpoint key, and the account's global
// error workflow marked by `is_error_workflow` (one per account).
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("workflows")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("steps", "text", (c) => c.notNull()) // JSON [{id, name, code}]
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("endpoint_key", "text", (c) => c.notNull().unique())
    .addColumn("custom_response", "integer", (c) => c.notNull())
    .addColumn("deployment_id", "text", (c) => c.notNull())
    .addColumn("is_error_workflow", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("workflows_by_user").on("workflows").columns(["user_id", "created_at", "id"]).execute();
  // At most one global error workflow per account, even when two errors create it lazily at once.
  await db.schema
    .createIndex("workflows_one_error_workflow")
    .on("workflows")
    .column("user_id")
    .unique()
    .where(sql<boolean>`is_error_workflow = 1`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("workflows").execute();
}
