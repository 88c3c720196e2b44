// Every difference between SQLite and PostgreSQL outside the queue (which has its own,
// queue/queue-dialect.ts), as one object per database. openStore chooses it once (Store.storage)
// and the context carries it (Ctx.storage); code that holds only a Kysely handle, such as an
// open transaction, finds the same object with storageOf.
import { PostgresAdapter, SqliteAdapter, type Kysely, type SelectQueryBuilder } from "kysely";
import { insertEventsAboveNewest } from "./postgres-insert-events.js";
import type { Database } from "./schema.js";

export type DialectName = "sqlite" | "postgres";

export interface StorageDialect {
  readonly name: DialectName;
  /** The placeholder of a statement's parameter at `index` (0-based): `?` or `$n`. */
  placeholder(index: number): string;
  /**
   * This process is the database's only writer (SQLite): what it did not write cannot
   * appear, so what it knows of newest ids and of cached pages stays true.
   */
  readonly soleWriter: boolean;
  /**
   * Writes a transaction does not read back, and its NOTIFYs, may wait until just before the
   * commit and go in one statement (deferred-writes.ts): worth it where each statement is a
   * round trip to a server.
   */
  readonly defersWrites: boolean;
  /** NOTIFY reaches every listening connection, of any process, when the transaction commits. */
  readonly notifies: boolean;
  /** Writes may run inside WITH, so several of them go in one statement. */
  readonly writesInWith: boolean;
  /** Locks the rows a claiming SELECT reads, skipping rows another claimer holds. */
  lockForClaim<Q extends SelectQueryBuilder<any, any, any>>(select: Q): Q;
  /** Locks the rows a SELECT reads until the transaction ends (SQLite: its transactions already run one at a time). */
  lockForUpdate<Q extends SelectQueryBuilder<any, any, any>>(select: Q): Q;
  /**
   * Stores an emitter's events above its newest stored one and reads the subscriptions of
   * their fan-out in the same statement; absent where the database cannot (then: read, then
   * insert, then read).
   */
  readonly insertEventsAboveNewest?: typeof insertEventsAboveNewest;
}

export const sqliteStorage: StorageDialect = {
  name: "sqlite",
  placeholder: () => "?",
  soleWriter: true,
  defersWrites: false,
  notifies: false,
  writesInWith: false,
  lockForClaim: (select) => select,
  lockForUpdate: (select) => select,
};

export const postgresStorage: StorageDialect = {
  name: "postgres",
  placeholder: (index) => `$${index + 1}`,
  soleWriter: false,
  defersWrites: true,
  notifies: true,
  writesInWith: true,
  lockForClaim: (select) => select.forUpdate().skipLocked() as typeof select,
  lockForUpdate: (select) => select.forUpdate() as typeof select,
  insertEventsAboveNewest,
};

/**
 * The storage dialect of a Kysely instance or of a transaction of it. Each database is
 * recognised by its own adapter: any other would otherwise be run with one of these
 * dialects' SQL, and fail later and far from the cause.
 */
export function storageOf(db: Kysely<Database> | Kysely<any>): StorageDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return postgresStorage;
  if (adapter instanceof SqliteAdapter) return sqliteStorage;
  throw new Error(
    `no storage dialect for the database adapter ${adapter.constructor.name}: Sluice stores its data in SQLite or PostgreSQL`,
  );
}
