// Work that a grouped transaction (group-commit.ts) does once for all of its units instead of
// once per unit: values read once and remembered for the transaction, and writes that can be
// merged (counters, trims) run once just before it commits. On the ingest path a group holds
// many executions of the same source, and every statement saved is per request saved.
//
// A transaction without a scope (any other caller) gets the plain behaviour: remembered
// values are read every time and deferred writes run at once, so callers need not care.
import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

export interface TransactionScope {
  /** Values read once per transaction (the caller keeps them current as it writes). */
  memo: Map<string, unknown>;
  /** Writes that run once, just before the commit, in insertion order. */
  beforeCommit: Map<string, () => Promise<void>>;
}

const scopes = new WeakMap<Kysely<Database>, TransactionScope>();

/** Runs `work` with a scope on `tx`, then the deferred writes; both inside the transaction. */
export async function withTransactionScope<T>(tx: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  const scope: TransactionScope = { memo: new Map(), beforeCommit: new Map() };
  scopes.set(tx, scope);
  try {
    const result = await work();
    for (const write of scope.beforeCommit.values()) await write();
    return result;
  } finally {
    scopes.delete(tx);
  }
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
