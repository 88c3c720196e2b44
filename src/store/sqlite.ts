// Embedded storage: one SQLite file in WAL mode. Kysely's SQLite driver serialises access
// through a single connection, which is the single-writer model the queue relies on.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "./schema.js";
import { cachePreparedStatements } from "./sqlite-statement-cache.js";

export function openSqlite(dataDir: string, fileName = "sluice.db"): Kysely<Database> {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(join(dataDir, fileName));
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  cachePreparedStatements(sqlite);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}
