// Group commit: units of work that arrive while a transaction is being written share the next
// transaction instead of paying one each (executions finishing close together on the ingest
// path). A unit's promise settles only after the transaction holding it committed, so nothing
// is acknowledged before it is durable. A group is written after GROUP_TURNS rounds of I/O
// (setImmediate), so it takes in what those rounds brought. If a grouped transaction fails,
// every unit of it is retried in its own transaction, so one failing unit cannot fail the
// others; a unit's own transaction is run again after a deadlock with another process
// (transient-conflict.ts). The units of a transaction share a scope (transaction-scope.ts) that
// merges their repeated reads and writes.
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

/**
 * Rounds of I/O a group waits for before it is written. A commit writes every page it changed
 * to the WAL, two system calls a page, and on the ingest path cost about as much as the writes of
 * the dozen units it carried. Under load a group that takes in three rounds instead of one holds
 * about 1.6 times as many units: a third fewer WAL writes per request (docs/benchmarks.md). An
 * idle loop goes through the rounds at once, so a lone request waits microseconds for it.
 */
const GROUP_TURNS = 3;

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
      // Executions whose results arrive in the next rounds of I/O join this one's transaction;
      // those arriving once it is being written wait for the next group.
      c.writing = true;
      afterTurns(GROUP_TURNS, () => void writeGroups(db, c));
    }
  });
}

function afterTurns(turns: number, fn: () => void): void {
  setImmediate(() => (turns <= 1 ? fn() : afterTurns(turns - 1, fn)));
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
