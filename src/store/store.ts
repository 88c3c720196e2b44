// Opens the database chosen by configuration and brings its schema up to date.
import type { Kysely } from "kysely";
import type pg from "pg";
import { migrateToLatest } from "./migrate.js";
import { openPostgres } from "./postgres.js";
import type { Database } from "./schema.js";
import type { CheckpointOptions } from "./sqlite-checkpoints.js";
import { openSqlite } from "./sqlite.js";
import { postgresStorage, sqliteStorage, type DialectName, type StorageDialect } from "./storage-dialect.js";

export type { DialectName };

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Every SQLite/PostgreSQL difference outside the queue (storage-dialect.ts). */
  storage: StorageDialect;
  /** The PostgreSQL URL, for components that need their own connection (LISTEN/NOTIFY). */
  databaseUrl?: string;
  pool?: pg.Pool;
  close(): Promise<void>;
}

export async function openStore(options: { databaseUrl?: string; dataDir: string; checkpoints?: CheckpointOptions }): Promise<Store> {
  let store: Store;
  if (options.databaseUrl) {
    const { db, pool } = openPostgres(options.databaseUrl);
    store = { db, dialect: "postgres", storage: postgresStorage, databaseUrl: options.databaseUrl, pool, close: () => db.destroy() };
  } else {
    const { db, close } = openSqlite(options.dataDir, { checkpoints: options.checkpoints });
    store = { db, dialect: "sqlite", storage: sqliteStorage, close };
  }
  try {
    await migrateToLatest(store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
