// The outbox write: jobs are rows inserted with the caller's `db`, which may be an open
// transaction, so they exist exactly when the work that caused them was committed. Usable
// without a queue instance (fan-out runs deep inside other verbs' transactions).
import type { Kysely } from "kysely";
import { newTimeOrderedId } from "../lib/ids.js";
import { combined } from "../store/deferred-writes.js";
import { storageOf } from "../store/storage-dialect.js";
import { rowInserter } from "../store/insert-rows.js";
import type { Database, JobsTable } from "../store/schema.js";
import { afterCommit, notifyBeforeCommit, writeBeforeCommit } from "../store/transaction-scope.js";
import type { NewJob } from "./job-queue.js";
import { JOBS_CHANNEL } from "./queue-dialect.js";
import { encodeWakeSignal, signalJobsAdded, THIS_PROCESS, wakeSignalFor } from "./wake.js";

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

export async function enqueueJobs(db: Kysely<Database>, jobs: NewJob[], now: number = Date.now()): Promise<void> {
  if (jobs.length === 0) return;
  const rows: JobsTable[] = jobs.map((job) => ({
    id: newTimeOrderedId("job"),
    type: job.type,
    payload: JSON.stringify(job.payload ?? null),
    user_id: job.userId ?? null,
    concurrency_key: job.concurrencyKey ?? null,
    run_at: job.runAt ?? now,
    attempts: 0,
    lease_token: null,
    locked_until: null,
    last_error: null,
    created_at: now,
  }));
  const signal = wakeSignalFor(rows, now);
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
