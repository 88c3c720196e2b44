import { Migrator, type Kysely } from "kysely";
import { migrations } from "./migrations/index.js";

const migratorOf = (db: Kysely<any>) => new Migrator({ db, provider: { getMigrations: async () => migrations } });

function assertApplied({ error, results }: { error?: unknown; results?: Array<{ status: string; migrationName: string }> }): void {
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ""} failed`, { cause: error });
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  assertApplied(await migratorOf(db).migrateToLatest());
}

/**
 * Applies the migrations up to `name` and no further: a database as an earlier release left
 * it, for the upgrade tests that fill one and then migrate it to the latest.
 */
export async function migrateUpTo(db: Kysely<any>, name: string): Promise<void> {
  if (!(name in migrations)) throw new Error(`no migration is named ${name}`);
  assertApplied(await migratorOf(db).migrateTo(name));
}

/** The names of the migrations this code knows, in the order they apply. */
export const knownMigrations = (): string[] => Object.keys(migrations).sort();
