// Work that a grouped transaction (group-commit.ts) does once for all of its units instead of
// once per unit: values read once and remembered for the transaction, and writes that can be
// merged (counters, trims) run once just before it commits. On the ingest path a group holds
// many executions of the same source, and every statement saved is per request saved.
//
// A transaction without a scope (any other caller) gets the plain behaviour: remembered
// values are read every time and deferred writes run at once, so callers need not care.
import type { CompiledQuery, Kysely, Transaction } from "kysely";
import { canDefer, flushDeferredWrites, noDeferredWrites, type DeferredWrites } from "./deferred-writes.js";
import { storageOf } from "./storage-dialect.js";
import type { Database } from "./schema.js";

export interface TransactionScope {
  /** Values read once per transaction (the caller keeps them current as it writes). */
  memo: Map<string, unknown>;
  /** Writes that run once, just before the commit, in insertion order. */
  beforeCommit: Map<string, () => Promise<void>>;
  /** PostgreSQL: writes and NOTIFYs sent as one statement after `beforeCommit` (deferred-writes.ts). */
  deferred: DeferredWrites;
  /** Told once the transaction committed (never when it rolled back). */
  afterCommit: Array<() => void>;
  /** Told once the transaction rolled back (never when it committed). */
  afterRollback: Array<() => void>;
}

const scopes = new WeakMap<Kysely<Database>, TransactionScope>();

/**
 * Runs `work` in a new transaction of `db` with a scope, then the scope's deferred writes,
 * both inside the transaction; after the commit, its after-commit callbacks.
 */
export async function inScopedTransaction<T>(db: Kysely<Database>, work: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
  const scope: TransactionScope = {
    memo: new Map(),
    beforeCommit: new Map(),
    deferred: noDeferredWrites(),
    afterCommit: [],
    afterRollback: [],
  };
  let result: T;
  try {
    result = await db.transaction().execute(async (tx) => {
      scopes.set(tx, scope);
      try {
        const out = await work(tx);
        for (const write of scope.beforeCommit.values()) await write();
        await flushDeferredWrites(tx, scope.deferred);
        return out;
      } finally {
        scopes.delete(tx);
      }
    });
  } catch (error) {
    for (const callback of scope.afterRollback) callback();
    throw error;
  }
  for (const callback of scope.afterCommit) callback();
  return result;
}

/**
 * Calls `callback` once what `db` wrote is committed: at once outside a transaction, after
 * the commit in a scoped one. In a transaction without a scope nobody can tell when it
 * commits, so it is not called: only for what may be skipped (hints, prefetches).
 */
export function afterCommit(db: Kysely<Database>, callback: () => void): void {
  const scope = scopes.get(db);
  if (scope) scope.afterCommit.push(callback);
  else if (!db.isTransaction) callback();
}

/**
 * Calls `commit` or `rollback` once the outcome of what `db` wrote is known, and returns
 * true; false (calling neither) in a transaction without a scope, where nobody can tell.
 */
export function onOutcome(db: Kysely<Database>, commit: () => void, rollback: () => void): boolean {
  const scope = scopes.get(db);
  if (scope) {
    scope.afterCommit.push(commit);
    scope.afterRollback.push(rollback);
    return true;
  }
  return false;
}

export function scopeOf(db: Kysely<Database>): TransactionScope | undefined {
  return scopes.get(db);
}

/**
 * Runs `write` once before the transaction commits, however many units ask for it under the
 * same key; without a scope it runs now.
 */
export async function onceBeforeCommit(db: Kysely<Database>, key: string, write: () => Promise<void>): Promise<void> {
  const scope = scopes.get(db);
  if (!scope) return write();
  if (!scope.beforeCommit.has(key)) scope.beforeCommit.set(key, write);
}

/**
 * Runs `query`, a write whose effect nobody in this transaction reads back: on PostgreSQL in a
 * scope it goes with the scope's other such writes in one statement just before the commit
 * (deferred-writes.ts); otherwise now.
 */
export async function writeBeforeCommit(db: Kysely<Database>, query: CompiledQuery): Promise<void> {
  const scope = scopes.get(db);
  if (scope && canDefer(db, query)) scope.deferred.writes.push(query);
  else await db.executeQuery(query);
}

/**
 * PostgreSQL in a scope: sends NOTIFY with the deferred writes (it reaches listeners at the
 * commit either way) and returns true. Otherwise false: the caller notifies its own way.
 */
export function notifyBeforeCommit(db: Kysely<Database>, channel: string, payload: string): boolean {
  const scope = scopes.get(db);
  if (!scope || !storageOf(db).defersWrites) return false;
  scope.deferred.notifications.push({ channel, payload });
  return true;
}
