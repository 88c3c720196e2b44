// What `sluice doctor` needs to know of the database, read without changing it: whether it is
// there, which migrations the server will apply at its next start, which it has that this code
// does not know (a newer release wrote it), and whether a key is the one its credentials use.
import type { Config } from "../../config.js";
import { inspectDatabase } from "../../store/inspect-database.js";
import { knownMigrations } from "../../store/migrate.js";
import { keyOpensCheck } from "../accounts/credential-key.js";

export interface DatabaseDescription {
  exists: boolean;
  /** Migrations the next start applies (all of them for a new database). */
  pending: string[];
  /** Applied migrations this code does not have: the database is from a newer release. */
  unknown: string[];
  /** Whether `key` opens the database's check value; undefined when it has none yet. */
  keyOpens(key: Buffer): boolean | undefined;
}

export async function describeDatabase(config: Pick<Config, "databaseUrl" | "dataDir">): Promise<DatabaseDescription> {
  const inspection = await inspectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const known = knownMigrations();
  const applied = new Set(inspection.applied);
  return {
    exists: inspection.exists,
    pending: known.filter((name) => !applied.has(name)),
    unknown: inspection.applied.filter((name) => !known.includes(name)),
    keyOpens: (key) => keyOpensCheck(key, inspection.secretChecks),
  };
}
