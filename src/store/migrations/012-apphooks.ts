// Apphooks: every connected account gets an inbound key, the path of its public URL
// (/a/<key>) where the app's provider posts events; accounts made before get one here. A
// source's `$.interface.apphook` prop binds it to the account its app prop names, with the
// event names its eventNames() chose (JSON; NULL until evaluated), looked up by account when
// an event arrives.
import type { Kysely } from "kysely";
import { randomString } from "../../lib/ids.js";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("connected_accounts").addColumn("inbound_key", "text").execute();
  const accounts = await db.selectFrom("connected_accounts").select("id").execute();
  for (const { id } of accounts) {
    await db
      .updateTable("connected_accounts")
      .set({ inbound_key: randomString(24).toLowerCase() })
      .where("id", "=", id)
      .execute();
  }
  await db.schema.createIndex("connected_accounts_by_inbound_key").on("connected_accounts").column("inbound_key").unique().execute();

  await db.schema
    .createTable("apphook_bindings")
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("prop_name", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("event_names", "text")
    .addPrimaryKeyConstraint("apphook_bindings_pk", ["source_id", "prop_name"])
    .execute();
  await db.schema.createIndex("apphook_bindings_by_account").on("apphook_bindings").columns(["account_id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("apphook_bindings").execute();
  await db.schema.dropIndex("connected_accounts_by_inbound_key").execute();
  await db.schema.alterTable("connected_accounts").dropColumn("inbound_key").execute();
}
