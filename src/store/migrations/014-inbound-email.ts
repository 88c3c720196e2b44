// E-mail sources: the key of a source's inbound address (`<key>@<SLUICE_EMAIL_DOMAIN>`), made
// when its component has an e-mail app prop; the SMTP listener finds the source by it.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("sources").addColumn("email_key", "text").execute();
  // A unique index rather than a column constraint: SQLite cannot add a UNIQUE column.
  await db.schema.createIndex("sources_by_email_key").unique().on("sources").column("email_key").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("sources_by_email_key").execute();
  await db.schema.alterTable("sources").dropColumn("email_key").execute();
}
