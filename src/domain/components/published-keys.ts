// Which component each published key stands for now (registry_components): the newest
// publication of a key wins, whether it came from the registry/ files or a registry package.
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.js";

export interface Publication {
  key: string;
  componentId: string;
  /** The registry package the component came from; null for the registry/ files. */
  packageName: string | null;
  now: number;
}

/** Makes `key` stand for the component: taking it over from whatever it stood for, or only if it stood for none. */
export async function publishKey(
  db: Kysely<Database>,
  publication: Publication,
  options: { takeOver: boolean } = { takeOver: true },
): Promise<void> {
  const row = {
    key: publication.key,
    component_id: publication.componentId,
    package_name: publication.packageName,
    published_at: publication.now,
  };
  await db
    .insertInto("registry_components")
    .values(row)
    .onConflict((conflict) =>
      options.takeOver
        ? conflict
            .column("key")
            .doUpdateSet({ component_id: row.component_id, package_name: row.package_name, published_at: row.published_at })
        : conflict.column("key").doNothing(),
    )
    .execute();
}
