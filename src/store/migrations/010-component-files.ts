// Components deployed from a local file keep the files its relative imports name (JSON:
// relative path → code), so their code can be prepared again in any process, at any time,
// as component_url's imports are fetched again.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("components").addColumn("files", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("components").dropColumn("files").execute();
}
