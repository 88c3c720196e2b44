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
  /**
   * SQLite: frees up to `maxPages` pages that deleted rows left, giving the file system its
   * space back; resolves with how many it freed. PostgreSQL has none: autovacuum reclaims.
   */
  freePages?: (maxPages: number) => Promise<number>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  databaseUrl?: string;
  dataDir: string;
  checkpoints?: CheckpointOptions;
  /** Told of slow one-time work at open (the VACUUM that turns on SQLite's auto_vacuum). */
  logger?: { info(fields: object, message: string): void };
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  let store: Store;
  if (options.databaseUrl) {
    const { db, pool } = openPostgres(options.databaseUrl);
    store = { db, dialect: "postgres", storage: postgresStorage, databaseUrl: options.databaseUrl, pool, close: () => db.destroy() };
  } else {
    const { db, close, autoVacuum, freePages } = openSqlite(options.dataDir, { checkpoints: options.checkpoints });
    if (autoVacuum)
      options.logger?.info(
        { ms: autoVacuum.vacuumMs },
        `database rewritten once by VACUUM to turn on incremental auto_vacuum (${autoVacuum.vacuumMs} ms)`,
      );
    store = { db, dialect: "sqlite", storage: sqliteStorage, freePages, close };
  }
  try {
    await migrateToLatest(store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
