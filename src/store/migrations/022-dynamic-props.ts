// The props a source's additionalProps() added (Pipedream's dynamic props): they depend on the
// source's configured values, so they are kept per source, as JSON configurable_props, beside
// the component's own. NULL when the component has no additionalProps().
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("sources").addColumn("dynamic_props", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("sources").dropColumn("dynamic_props").execute();
}
