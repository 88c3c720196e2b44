// A read-only look into the database of the Sluice under test, from the bench process. Used
// only to observe what the API does not show (a timer's next_run_at), never to change state.
import type { Kysely } from "kysely";
import { openPostgres } from "../../src/store/postgres.js";
import type { Database } from "../../src/store/schema.js";
import { openSqlite } from "../../src/store/sqlite.js";

export interface ObserverDatabase {
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** The server's PostgreSQL database when it has one, else its SQLite file in dataDir (WAL: readers never block it). */
export function openObserverDatabase(options: { dataDir: string; databaseUrl?: string }): ObserverDatabase {
  if (!options.databaseUrl) return openSqlite(options.dataDir, { checkpoints: false }); // the server checkpoints
  const { db } = openPostgres(options.databaseUrl);
  return { db, close: () => db.destroy() };
}
