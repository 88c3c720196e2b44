// The durable job queue in the database (src/queue): jobs are written in the caller's
// transaction (outbox), claimed by workers with leases, retried, and survive crashes.
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

export interface NewJob {
  type: string;
  payload: unknown;
  userId?: string;
  /** Jobs with the same key run at most `perKeyConcurrency` at a time in one worker. */
  concurrencyKey?: string;
  /** Milliseconds; now when absent. */
  runAt?: number;
}

export interface Job {
  id: string;
  type: string;
  payload: any;
  userId: string | null;
  attempts: number;
  /** Aborted when the queue stops; long handlers should give up (the job is retried later). */
  signal?: AbortSignal;
  /**
   * Finishes the job inside the handler's own transaction, so its effects and its removal
   * commit together and a crash cannot run it again after its effects were stored. Throws
   * (rolling that transaction back) when this worker no longer holds the job's lease.
   */
  complete?: (db: Kysely<Database>) => Promise<void>;
  /**
   * Frees the job's place under its concurrency key before the job finishes: the handler is
   * done with what the key limits (e.g. the request to an endpoint) and only bookkeeping is
   * left. The job keeps its lease and its place in the type's concurrency until it finishes.
   */
  releaseKey?: () => void;
  /**
   * The job's claim, for handlers that finish many jobs in one statement of their own
   * transaction (completeJobs) and then return `{ completed: true }`.
   */
  lease?: JobLease;
}

export interface JobLease {
  id: string;
  token: string;
}

/**
 * A handler finishes the job by returning; `{ retryAt }` asks for another attempt later;
 * `{ completed: true }` says the handler removed the job itself (completeJobs), so the queue
 * does not. A job finished through `complete` is not removed again either.
 */
export type JobHandler = (job: Job) => Promise<void | { retryAt: number } | { completed: true }>;

export interface HandleOptions {
  /** Jobs of this type running at once in one worker. */
  concurrency?: number;
  perKeyConcurrency?: number;
  /**
   * Attempts a job of this type gets, in place of the queue's (SLUICE_JOB_MAX_ATTEMPTS): once
   * used up, a job that throws, asks for another attempt, or was claimed after its lease ran
   * out is dead. For types with a retry schedule of their own (webhook deliveries).
   */
  maxAttempts?: number;
  /**
   * Called with the payload of every job as soon as this worker claims it, before it may have
   * to wait for its key: lets a handler start reading what the job will need (one query for
   * all of a claim's jobs), so a freed place under a key goes to a job that is ready to run.
   */
  onClaimed?: (payload: any) => void;
}

export interface JobQueue {
  /** Adds jobs inside `db`, which may be an open transaction; they run once it commits. */
  enqueue(db: Kysely<Database>, jobs: NewJob[]): Promise<void>;
  handle(type: string, handler: JobHandler, options?: HandleOptions): void;
  start(): void;
  stop(): Promise<void>;
}
