// Group commit: units of work that arrive while a transaction is being written share the next
// transaction instead of paying one each (executions finishing close together on the ingest
// path). A unit's promise settles only after the transaction holding it committed, so nothing
// is acknowledged before it is durable. A group starts at the end of the current round of
// I/O (setImmediate), so the wait it adds is one event-loop turn. If a grouped transaction fails, every unit of it is retried in its
// own transaction, so one failing unit cannot fail the others; a unit's own transaction is run
// again after a deadlock with another process (transient-conflict.ts). The units of a transaction
// share a scope (transaction-scope.ts) that merges their repeated reads and writes.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.js";
import { inScopedTransaction } from "./transaction-scope.js";
import { retryTransientConflicts } from "./transient-conflict.js";

type Work<T> = (tx: Transaction<Database>) => Promise<T>;

interface Unit {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const MAX_UNITS = 64;

interface Committer {
  waiting: Unit[];
  writing: boolean;
}

const committers = new WeakMap<Kysely<Database>, Committer>();

/** Runs `work` in a transaction, possibly shared with other units submitted meanwhile. */
export function inGroupTransaction<T>(db: Kysely<Database>, work: Work<T>): Promise<T> {
  let committer = committers.get(db);
  if (!committer) committers.set(db, (committer = { waiting: [], writing: false }));
  const c = committer;
  return new Promise<T>((resolve, reject) => {
    c.waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
    if (!c.writing) {
      // Wait for the end of this round of I/O: executions whose results arrived in it (SQLite
      // writes without yielding, so nothing else could join) go into one transaction.
      c.writing = true;
      setImmediate(() => void writeGroups(db, c));
    }
  });
}

async function writeGroups(db: Kysely<Database>, c: Committer): Promise<void> {
  try {
    while (c.waiting.length > 0) {
      const group = c.waiting.splice(0, MAX_UNITS);
      if (group.length === 1) await alone(db, group[0]!);
      else await together(db, group);
    }
  } finally {
    c.writing = false;
  }
}

async function alone(db: Kysely<Database>, unit: Unit): Promise<void> {
  try {
    unit.resolve(await retryTransientConflicts(() => inScopedTransaction(db, (tx) => unit.work(tx))));
  } catch (error) {
    unit.reject(error);
  }
}

async function together(db: Kysely<Database>, group: Unit[]): Promise<void> {
  let results: unknown[];
  try {
    results = await inScopedTransaction(db, async (tx) => {
      const out: unknown[] = [];
      for (const unit of group) out.push(await unit.work(tx));
      return out;
    });
  } catch {
    for (const unit of group) await alone(db, unit);
    return;
  }
  group.forEach((unit, i) => unit.resolve(results[i]));
}
