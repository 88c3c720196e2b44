import type { Kysely } from "kysely";

// Components: saved component code and the metadata the runner extracted from it. Rows with
// a NULL user_id are published registry components (registry/ and SLUICE_REGISTRY_DIR).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("components")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("key", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("component_url", "text")
    .addColumn("metadata", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("components_by_user_key").on("components").columns(["user_id", "key", "created_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("components").execute();
}
