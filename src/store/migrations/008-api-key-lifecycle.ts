// API keys get a name, an optional expiry and the time of their last use. An account may hold
// several keys; revoking one deletes its row, so a key is either present or refused.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("name", "text").execute();
  await db.schema.alterTable("api_keys").addColumn("expires_at", "bigint").execute();
  await db.schema.alterTable("api_keys").addColumn("last_used_at", "bigint").execute();
  await db.schema.createIndex("api_keys_by_user").on("api_keys").columns(["user_id", "created_at", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("api_keys_by_user").execute();
  for (const column of ["last_used_at", "expires_at", "name"]) await db.schema.alterTable("api_keys").dropColumn(column).execute();
}
