// The SQL that differs between SQLite and PostgreSQL, behind one interface:
// claiming due jobs under a lease, and cross-process wake-ups.
import type { Kysely } from "kysely";
import type { Database, JobsTable } from "../store/schema.js";
import type { WakeSignal } from "./wake.js";

export interface ClaimRequest {
  type: string;
  limit: number;
  now: number;
  leaseMs: number;
  /** Written on the claimed rows; only its holder may finish or reschedule them. */
  token: string;
  /** Keys this worker runs its limit of already: their jobs are left for later or others. */
  busyKeys: string[];
  /** At most this many jobs per concurrency key in one claim (0: no limit). */
  perKey: number;
}

/**
 * How many of the earliest due jobs a claim looks at when it caps jobs per key. Keys this
 * worker has filled are skipped inside the scan, so twice the per-key cap finds work for
 * more than one key; scanning further mostly reads rows of one busy key that the cap then
 * drops (a claim that comes back short of its limit looks again once those keys are filled).
 * With one busy webhook and a cap of 64, scanning 256 rows instead of 128 cost SQLite half
 * as much again per claim.
 */
export const claimScanSize = (limit: number, perKey = 0) => Math.min(500, Math.max(64, perKey > 0 ? Math.min(limit, 2 * perKey) : limit));

export interface QueueDialect {
  /** Atomically leases up to `limit` due jobs of `type` whose lease is free or expired. */
  claim(db: Kysely<Database>, request: ClaimRequest): Promise<JobsTable[]>;
  /**
   * When the earliest job of `type` becomes claimable (due, or its lease expires), ms; null
   * when there is none. Jobs of `busyKeys` do not count (a release of such a key wakes the
   * worker): they are skipped by index ranges between those keys, so a long backlog of a
   * busy key costs nothing here.
   */
  nextDue(db: Kysely<Database>, type: string, busyKeys: string[]): Promise<number | null>;
  /**
   * Subscribes to other processes' notifications; resolves once listening. The signal names
   * the job types added; undefined when unknown (any type may be due, at any time).
   */
  listen(onWake: (signal?: WakeSignal) => void): Promise<{ close(): Promise<void> }>;
}

export const JOBS_CHANNEL = "sluice_jobs";

/** When a job becomes claimable: its run time, or the end of its lease while one is held. */
export const CLAIMABLE_AT = "case when locked_until is not null and locked_until > run_at then locked_until else run_at end";
