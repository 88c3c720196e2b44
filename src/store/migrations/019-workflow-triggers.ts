// A workflow's trigger (POST /v1/workflows `trigger`): what starts it, and what the service made
// for it (the timer or e-mail source, the subscription to a chosen source), as one JSON text.
// Null is the default trigger, the workflow's own HTTP endpoint.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("workflows").addColumn("trigger", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("workflows").dropColumn("trigger").execute();
}
