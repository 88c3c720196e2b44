// The one way into the queue: every job (new, fanned out, handed to this process's worker, or
// a dead one sent back) enters through enqueueJobs; JobQueue.enqueue stamps its clock's time
// and calls it. This is the outbox write: jobs are rows inserted with the caller's `db`, which
// may be an open transaction, so they exist exactly when the work that caused them was
// committed. Usable without a queue instance (fan-out runs deep inside other verbs'
// transactions), so the caller passes the time from its context's clock.
import type { Kysely } from "kysely";
import { newTimeOrderedId } from "../lib/ids.js";
import { combined } from "../store/deferred-writes.js";
import { storageOf } from "../store/storage-dialect.js";
import { rowInserter } from "../store/insert-rows.js";
import type { Database, JobsTable } from "../store/schema.js";
import { afterCommit, notifyBeforeCommit, onOutcome, scopeOf, writeBeforeCommit } from "../store/transaction-scope.js";
import type { NewJob } from "./job-queue.js";
import { JOBS_CHANNEL } from "./queue-dialect.js";
import { offerToLocalWorker } from "./local-handoff.js";
import { encodeWakeSignal, signalJobsAdded, THIS_PROCESS, wakeSignalFor, type WakeSignal } from "./wake.js";

/** Rows per INSERT, well under both databases' parameter limits. */
const CHUNK = 500;

const insertJobs = rowInserter("jobs", {
  id: true,
  type: true,
  payload: true,
  user_id: true,
  concurrency_key: true,
  run_at: true,
  attempts: true,
  lease_token: true,
  locked_until: true,
  last_error: true,
  created_at: true,
});

/** A dead job sent back (dead-jobs.ts) keeps its id, its creation time and the error it died of. */
export interface ReturningJob extends NewJob {
  id: string;
  createdAt: number;
  lastError: string | null;
}

/** Adds jobs inside `db`, which may be an open transaction; `now` (ms, the caller's clock) stamps them and is when they are due unless they say. */
export async function enqueueJobs(db: Kysely<Database>, jobs: ReadonlyArray<NewJob | ReturningJob>, now: number): Promise<void> {
  if (jobs.length === 0) return;
  const rows: JobsTable[] = jobs.map((job) => ({
    id: "id" in job ? job.id : newTimeOrderedId("job"),
    type: job.type,
    payload: JSON.stringify(job.payload ?? null),
    user_id: job.userId ?? null,
    concurrency_key: job.concurrencyKey ?? null,
    run_at: job.runAt ?? now,
    attempts: 0,
    lease_token: null,
    locked_until: null,
    last_error: "lastError" in job ? job.lastError : null,
    created_at: "createdAt" in job ? job.createdAt : now,
  }));
  await enqueueRows(db, rows, now);
}

/** Writes the rows and starts or wakes their workers. */
async function enqueueRows(db: Kysely<Database>, rows: JobsTable[], now: number): Promise<void> {
  // Handed to this process's worker only where the transaction's outcome can be told (none,
  // or one with a scope): a job taken in a transaction that then rolled back would hold its
  // worker's place until its lease ran out.
  const handOff = db.isTransaction && !scopeOf(db) ? undefined : offerToLocalWorker(db, rows, now);
  const taken = new Set(handOff?.taken);
  const free = handOff ? rows.filter((row) => !taken.has(row)) : rows;
  try {
    await insertJobRows(db, rows, free.length > 0 ? wakeSignalFor(free, now) : undefined);
  } catch (error) {
    if (handOff) handOff.worker.release(handOff.taken);
    throw error;
  }
  if (!handOff) return;
  const start = () => handOff.worker.start(handOff.taken);
  if (!db.isTransaction) start();
  else onOutcome(db, start, () => handOff.worker.release(handOff.taken));
}

/** Inserts the rows; `signal` (jobs left for any worker to claim) wakes workers once they can see them. */
async function insertJobRows(db: Kysely<Database>, rows: JobsTable[], signal: WakeSignal | undefined): Promise<void> {
  if (!signal) {
    // Every job is leased already: nobody needs waking; on PostgreSQL in a scope the rows
    // go with the transaction's other deferred writes.
    for (let i = 0; i < rows.length; i += CHUNK) await writeBeforeCommit(db, insertJobs.compile(db, rows.slice(i, i + CHUNK)));
    return;
  }
  // PostgreSQL: NOTIFY reaches every worker when the transaction commits; an in-process
  // wake-up before then would only claim before the rows are visible. In a grouped
  // transaction the rows and the NOTIFY wait for the statement that carries the transaction's
  // other deferred writes (store/deferred-writes.ts), and this process's workers are woken
  // in-process as soon as the commit returns (they skip the NOTIFY naming this process, which
  // comes a few hundred µs later). Otherwise the NOTIFY goes with the last chunk's INSERT and
  // wakes everyone. Either way: no round trip of its own on the path from emit to delivery.
  // SQLite: wake this process at once — its claim waits on the single connection until the
  // transaction ends.
  if (storageOf(db).notifies) {
    if (notifyBeforeCommit(db, JOBS_CHANNEL, encodeWakeSignal({ ...signal, origin: THIS_PROCESS }))) {
      for (let i = 0; i < rows.length; i += CHUNK) await writeBeforeCommit(db, insertJobs.compile(db, rows.slice(i, i + CHUNK)));
      afterCommit(db, () => signalJobsAdded(signal));
      return;
    }
    for (let i = 0; i < rows.length - CHUNK; i += CHUNK) await insertJobs.execute(db, rows.slice(i, i + CHUNK));
    const last = rows.slice(Math.floor((rows.length - 1) / CHUNK) * CHUNK);
    await db.executeQuery(combined([insertJobs.compile(db, last)], [{ channel: JOBS_CHANNEL, payload: encodeWakeSignal(signal) }]));
    if (db.isTransaction) return;
  } else {
    for (let i = 0; i < rows.length; i += CHUNK) await insertJobs.execute(db, rows.slice(i, i + CHUNK));
  }
  signalJobsAdded(signal);
}
