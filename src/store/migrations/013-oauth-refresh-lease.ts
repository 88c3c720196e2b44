// OAuth 2 refresh of connected accounts, one at a time per account across processes: the
// holder of the refresh lease (until when, and a random owner id so only it releases it) asks
// the token endpoint; everyone else waits for its result. `refresh_failure` keeps why the last
// refresh failed (a message without secrets), so the callers that waited report it rather
// than asking again.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("connected_accounts").addColumn("refresh_lease_until", "bigint").execute();
  await db.schema.alterTable("connected_accounts").addColumn("refresh_lease_owner", "text").execute();
  await db.schema.alterTable("connected_accounts").addColumn("refresh_failure", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ["refresh_failure", "refresh_lease_owner", "refresh_lease_until"])
    await db.schema.alterTable("connected_accounts").dropColumn(column).execute();
}
