// Registry packages: npm packages in the shape of `@pipedream/<app>` whose sources are
// published components, each recorded with the exact version every host installs. A
// component of a package says where it lives in it (package_name, package_version,
// package_path), so any host can install that version and load the file from it.
// `registry_components` names the component each published key stands for now (from a
// package or from the registry/ files): a newer version or another package may take a key
// over, and a removed package takes its keys away, while the component rows stay for the
// sources that use them.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("registry_packages")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("added_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.alterTable("components").addColumn("package_name", "text").execute();
  await db.schema.alterTable("components").addColumn("package_version", "text").execute();
  await db.schema.alterTable("components").addColumn("package_path", "text").execute();
  await db.schema
    .createTable("registry_components")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("component_id", "text", (c) => c.notNull())
    .addColumn("package_name", "text")
    .addColumn("published_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("registry_components_by_package").on("registry_components").column("package_name").execute();
  // Published components saved before: each key stands for its newest row, as it did.
  await sql`
    insert into registry_components (key, component_id, package_name, published_at)
    select c.key, c.id, null, c.created_at from components c
    where c.user_id is null and c.key is not null and not exists (
      select 1 from components n
      where n.user_id is null and n.key = c.key and (n.created_at > c.created_at or (n.created_at = c.created_at and n.id > c.id))
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("registry_components").execute();
  await db.schema.alterTable("components").dropColumn("package_path").execute();
  await db.schema.alterTable("components").dropColumn("package_version").execute();
  await db.schema.alterTable("components").dropColumn("package_name").execute();
  await db.schema.dropTable("registry_packages").execute();
}
