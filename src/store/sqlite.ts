// Embedded storage: one SQLite file in WAL mode. Kysely's SQLite driver serialises access
// through a single connection, which is the single-writer model the queue relies on.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "./schema.js";
import { checkpointInThread, type CheckpointOptions, type Checkpoints } from "./sqlite-checkpoints.js";
import { cachePreparedStatements } from "./sqlite-statement-cache.js";

export interface SqliteStore {
  db: Kysely<Database>;
  /** Undefined when opened without (`checkpoints: false`, for a reader beside the service). */
  checkpoints: Checkpoints | undefined;
  close(): Promise<void>;
}

export function openSqlite(dataDir: string, options: { fileName?: string; checkpoints?: CheckpointOptions | false } = {}): SqliteStore {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, options.fileName ?? "sluice.db");
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const checkpoints = options.checkpoints === false ? undefined : checkpointInThread(sqlite, file, options.checkpoints);
  cachePreparedStatements(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    db,
    checkpoints,
    async close() {
      await checkpoints?.stop();
      await db.destroy();
    },
  };
}
