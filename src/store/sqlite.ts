// Embedded storage: one SQLite file in WAL mode. Kysely's SQLite driver serialises access
// through a single connection, which is the single-writer model the queue relies on.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { SQLite } from "./sqlite-driver.js";
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "./schema.js";
import { ensureIncrementalAutoVacuum, freeFreePages, type AutoVacuumNote } from "./sqlite-auto-vacuum.js";
import { checkpointInThread, type CheckpointOptions, type Checkpoints } from "./sqlite-checkpoints.js";
import { cachePreparedStatements } from "./sqlite-statement-cache.js";

export interface SqliteStore {
  db: Kysely<Database>;
  /** Undefined when opened without (`checkpoints: false`, for a reader beside the service). */
  checkpoints: Checkpoints | undefined;
  /** Set when opening rewrote a database made before incremental auto_vacuum (once). */
  autoVacuum: AutoVacuumNote | undefined;
  /** Frees up to `maxPages` free pages (sqlite-auto-vacuum.ts); resolves with how many it freed. */
  freePages(maxPages: number): Promise<number>;
  close(): Promise<void>;
}

/** The database's file in the data directory. */
export const DATABASE_FILE = "sluice.db";

export function openSqlite(dataDir: string, options: { fileName?: string; checkpoints?: CheckpointOptions | false } = {}): SqliteStore {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, options.fileName ?? DATABASE_FILE);
  const sqlite = new SQLite(file);
  // A reader beside the service leaves the file's layout to the service.
  const autoVacuum = options.checkpoints === false ? undefined : ensureIncrementalAutoVacuum(sqlite);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // Sorts and window functions (a queue claim has both) build temporary b-trees; kept in a
  // file, each one costs file system calls: a claim timed alone took about eight times as
  // long. What the service sorts is small (pages, claim windows), so memory is the place.
  sqlite.pragma("temp_store = MEMORY");
  cachePreparedStatements(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  // Holding Kysely's one connection keeps a pragma out of any transaction it has open.
  const betweenTransactions = <T>(fn: () => T): Promise<T> => db.connection().execute(async () => fn());
  const checkpoints =
    options.checkpoints === false ? undefined : checkpointInThread(sqlite, file, betweenTransactions, options.checkpoints);
  return {
    db,
    checkpoints,
    autoVacuum,
    freePages: (maxPages) => betweenTransactions(() => freeFreePages(sqlite, maxPages)),
    async close() {
      await checkpoints?.stop();
      await db.destroy();
    },
  };
}
