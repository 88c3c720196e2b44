// Data stores: an account's named key-value stores, which user code reaches through a
// `data_store` prop and the API through /v1/data_stores. A store's row keeps the bytes its
// records hold (key and value), changed in the transaction that changes a record, so the
// account's storage figure adds it without reading the records.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("data_stores")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // The account's list pages newest first by (created_at, id), like every list.
  await db.schema.createIndex("data_stores_by_user").on("data_stores").columns(["user_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("data_store_records")
    .addColumn("store_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull()) // JSON
    .addColumn("bytes", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint")
    .addPrimaryKeyConstraint("data_store_records_pk", ["store_id", "key"])
    .execute();
  // The sweep of expired records finds them without reading the others.
  await db.schema.createIndex("data_store_records_by_expiry").on("data_store_records").columns(["expires_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("data_store_records").execute();
  await db.schema.dropTable("data_stores").execute();
}
