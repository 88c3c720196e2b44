// Connected accounts: credentials of an app, encrypted with the service's secret key, that app
// props name by id. An account made from a source's inline `$auth` remembers the source and
// prop, so a later inline `$auth` for that prop replaces its credentials. `secret_checks` holds
// a value encrypted with the key, so a wrong or missing key is noticed at start.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("connected_accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("app", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("fields", "text", (c) => c.notNull())
    .addColumn("credentials", "text", (c) => c.notNull())
    .addColumn("source_id", "text")
    .addColumn("prop_name", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("connected_accounts_by_user").on("connected_accounts").columns(["user_id", "created_at", "id"]).execute();
  await db.schema
    .createTable("secret_checks")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("secret_checks").execute();
  await db.schema.dropTable("connected_accounts").execute();
}
