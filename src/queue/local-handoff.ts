// Jobs handed to this process's own worker as they are enqueued, instead of being claimed
// back from the database: the row is inserted already leased by that worker, which starts
// it once the enqueuing transaction commits (and gives the place back if it rolls back).
// A job that was claimed costs an UPDATE that scans the due jobs, and a wake-up before it;
// on the ingest → webhook path every event went through two. Jobs nobody here takes (no
// worker role, no free place, a backlog in the database that should go first, due later)
// are inserted free and claimed as before, by any process.
//
// Workers are found by the database they serve: a Kysely instance and its transactions share
// one adapter object, so two apps in one process (tests) never hand jobs to each other.
import type { Kysely } from "kysely";
import type { Database, JobsTable } from "../store/schema.js";

export interface LocalWorker {
  /**
   * Takes the job if it can run it now: writes its lease into `row` and holds a place for
   * it. A taken job must be followed by `start` (committed) or `release` (rolled back).
   */
  reserve(row: JobsTable, now: number): boolean;
  start(rows: JobsTable[]): void;
  release(rows: JobsTable[]): void;
}

const workers = new WeakMap<object, LocalWorker>();

const keyOf = (db: Kysely<Database>) => db.getExecutor().adapter;

export function registerLocalWorker(db: Kysely<Database>, worker: LocalWorker): () => void {
  workers.set(keyOf(db), worker);
  return () => {
    if (workers.get(keyOf(db)) === worker) workers.delete(keyOf(db));
  };
}

export interface HandOff {
  worker: LocalWorker;
  taken: JobsTable[];
}

/** Offers each row to this process's worker for `db`; undefined when it took none. */
export function offerToLocalWorker(db: Kysely<Database>, rows: JobsTable[], now: number): HandOff | undefined {
  const worker = workers.get(keyOf(db));
  if (!worker) return undefined;
  const taken = rows.filter((row) => row.run_at <= now && worker.reserve(row, now));
  return taken.length > 0 ? { worker, taken } : undefined;
}
