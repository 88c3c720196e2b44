// The job queue over the database: a worker loop that claims due jobs under a lease, runs
// their handlers with a per-type concurrency limit, keeps leases alive while handlers run,
// and finishes or reschedules each job only while it still holds that job's lease. Per-type
// bookkeeping is type-places.ts (it decides, this file carries out); the statements on held
// rows are job-rows.ts; the way in is enqueue.ts.
//
// The states of a job, as this worker sees it:
// - scheduled: a free row whose run_at is later; the loop sleeps until the earliest one.
// - due: a free row whose time has come (or whose lease ran out); any worker may claim it.
// - leased: claimed by a worker (or handed to this process's worker as it was enqueued,
//   local-handoff.ts): lease_token and locked_until set, renewed by the heartbeat. Here it is
//   - waiting for its key: held, its concurrency key at its limit; runs when the key frees;
//   - queued here: leased beyond the free places, runs when a place frees, or is returned
//     free on stop (type-places.ts, ADR 0028);
//   - running: its handler runs.
// - then it is removed (done), scheduled again (failed, or asked for a retry), or dead
//   (attempts used up: moved to dead_jobs, dead-jobs.ts, until an operator sends it back).
// A worker that dies holds its leases until they run out; the jobs are then due again.
import { setMaxListeners } from "node:events";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../lib/clock.js";
import { toError } from "../lib/errors.js";
import { randomString } from "../lib/ids.js";
import type { Database, JobsTable } from "../store/schema.js";
import type { HandleOptions, Job, JobHandler, JobLease, JobQueue, NewJob } from "./job-queue.js";
import { createBatcher } from "./batcher.js";
import { buryJob, completeJob, completeJobs, renewLeases, rescheduleJob, returnUnstartedJobs } from "./job-rows.js";
import { enqueueJobs } from "./enqueue.js";
import type { QueueDialect } from "./queue-dialect.js";
import { registerLocalWorker, type LocalWorker } from "./local-handoff.js";
import { onJobsAdded, type WakeSignal } from "./wake.js";
import { NextDueCache } from "./next-due-cache.js";
import { TypePlaces, type Decision } from "./type-places.js";

export interface QueueOptions {
  db: Kysely<Database>;
  dialect: QueueDialect;
  clock: Clock;
  logger: Logger;
  /** How long a claim is valid without renewal; a dead worker's jobs return after it. */
  leaseMs?: number;
  /** Safety poll for wake-ups that never came (lost NOTIFY, clock jumps). */
  pollMs?: number;
  /** Concurrency of a type registered without one. */
  defaultConcurrency?: number;
  /** Attempts a job of a type registered without its own maximum gets before it is dead (SLUICE_JOB_MAX_ATTEMPTS). */
  maxAttempts?: number;
  /** Delay before the next attempt of a job whose handler threw, by the attempt that failed (errorBackoffMs). */
  retryBackoffMs?: (attempts: number) => number;
}

interface Registration {
  handler: JobHandler;
  /** A job claimed for a later attempt than this is dead, and so is one that fails or asks for another at it. */
  maxAttempts: number;
  onClaimed?: (payload: unknown) => void;
  places: TypePlaces;
}

const MAX_ERROR_BACKOFF_MS = 10 * 60_000;
/** SLUICE_JOB_MAX_ATTEMPTS's default: at the backoff's ten-minute cap, about three hours of tries. */
export const DEFAULT_MAX_ATTEMPTS = 25;

/** Retry delay after a handler threw: exponential in the attempt number, with jitter. */
export function errorBackoffMs(attempts: number): number {
  const base = Math.min(MAX_ERROR_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export class DbJobQueue implements JobQueue {
  private readonly handlers = new Map<string, Registration>();
  /** Jobs this worker holds (running, waiting for their key, or queued here): id → lease token. */
  private readonly leases = new Map<string, string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly workerId = `w${randomString(8)}`;
  private claimCounter = 0;
  private running = false;
  private wakeRequested = false;
  /**
   * Types worth claiming at the next look: all of them, or only those named by wake-ups, each
   * with the concurrency keys its wake-ups named (null: any key may have claimable jobs).
   */
  private claimAll = true;
  private readonly claimTypes = new Map<string, Set<string> | null>();
  private readonly nextDue = new NextDueCache();
  private wakeUp: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private unregisterLocalWorker: (() => void) | undefined;
  private listener: { close(): Promise<void> } | undefined;
  private abort = new AbortController();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly defaultConcurrency: number;
  private readonly maxAttempts: number;
  private readonly retryBackoffMs: (attempts: number) => number;

  /** Finished jobs are deleted in groups; each still only while this worker holds its lease. */
  private readonly finished = createBatcher<JobLease>((leases) => completeJobs(this.options.db, leases));

  constructor(private readonly options: QueueOptions) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 2_000;
    this.defaultConcurrency = options.defaultConcurrency ?? 16;
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.retryBackoffMs = options.retryBackoffMs ?? errorBackoffMs;
  }

  enqueue(db: Kysely<Database>, jobs: NewJob[]): Promise<void> {
    return enqueueJobs(db, jobs, this.options.clock.now());
  }

  handle(type: string, handler: JobHandler, options: HandleOptions = {}): void {
    this.handlers.set(type, {
      handler,
      maxAttempts: options.maxAttempts ?? this.maxAttempts,
      onClaimed: options.onClaimed,
      places: new TypePlaces(options.concurrency ?? this.defaultConcurrency, options.perKeyConcurrency ?? 0),
    });
    this.wake();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    setMaxListeners(0, this.abort.signal); // one listener per running handler
    this.unsubscribe = onJobsAdded((signal) => this.jobsAdded(signal));
    this.unregisterLocalWorker = registerLocalWorker(this.options.db, this.localWorker);
    void this.options.dialect
      .listen((signal) => this.jobsAdded(signal))
      .then((listener) => {
        if (this.running) this.listener = listener;
        else void listener.close();
      })
      .catch((error) => this.options.logger.warn({ err: error }, "queue could not listen for wake-ups; polling"));
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unregisterLocalWorker?.();
    this.unsubscribe?.();
    this.abort.abort();
    this.wake();
    await this.loopDone;
    await this.returnQueuedHere();
    await Promise.allSettled([...this.inFlight]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.listener?.close();
    this.listener = undefined;
  }

  /** Jobs were added for any worker to claim (undefined: of any type): they come before hand-offs. */
  private jobsAdded(signal: WakeSignal | undefined): void {
    this.undrain(signal?.types);
    if (signal) this.wake(signal.types, signal.dueNow, signal.keys);
    else this.wake();
  }

  private undrain(types: readonly string[] | undefined): void {
    for (const [type, registration] of this.handlers) {
      if (types && !types.includes(type)) continue;
      registration.places.jobsAdded();
    }
  }

  /** What this process's enqueues hand over (local-handoff.ts). */
  private readonly localWorker: LocalWorker = {
    reserve: (row, now) => {
      const registration = this.handlers.get(row.type);
      if (!this.running || !registration?.places.reserve(row)) return false;
      row.lease_token = `${this.workerId}.${++this.claimCounter}`;
      row.locked_until = now + this.leaseMs;
      row.attempts = 1;
      return true;
    },
    start: (rows) => {
      for (const row of rows) {
        const registration = this.handlers.get(row.type) as Registration;
        // Stopped meanwhile: the job stays leased and is claimed again when its lease ends.
        if (!this.running) {
          this.carryOut(registration.places.releaseReserved(row), row.type, registration);
          continue;
        }
        this.leases.set(row.id, row.lease_token!);
        this.carryOut(registration.places.startReserved(row), row.type, registration);
      }
    },
    release: (rows) => {
      for (const row of rows) {
        const registration = this.handlers.get(row.type) as Registration;
        this.carryOut(registration.places.releaseReserved(row), row.type, registration);
      }
    },
  };

  /** Carries out what a type's bookkeeping decided, in order. */
  private carryOut(decisions: readonly Decision[], type: string, registration: Registration): void {
    for (const decision of decisions) {
      switch (decision.kind) {
        case "announce":
          this.announceClaim(decision.row, registration);
          break;
        case "run":
          this.startJob(decision.row, registration, decision.key);
          break;
        case "wake":
          this.wake([type], true);
          break;
        case "claim-again":
          this.addClaimType(type, undefined);
          break;
        case "recheck-next-due":
          this.nextDue.markStale(type);
          break;
      }
    }
  }

  /**
   * Asks the loop to look for due jobs now: of the given types, or of every type. Claiming
   * only the types that changed keeps a busy stream of one type from costing a claim (and a
   * next-due query) for every other registered type at each wake-up. `keys`: the only
   * concurrency keys that got new jobs (undefined: any key may have).
   */
  wake(types?: readonly string[], dueNow = false, keys?: readonly string[]): void {
    if (types === undefined) {
      this.claimAll = true;
      this.nextDue.forgetAll();
    } else {
      for (const type of types) this.addClaimType(type, dueNow ? keys : undefined);
      if (!dueNow) for (const type of types) this.nextDue.markStale(type);
    }
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  private addClaimType(type: string, keys: readonly string[] | undefined): void {
    const known = this.claimTypes.get(type);
    if (known === null) return;
    if (keys === undefined) this.claimTypes.set(type, null);
    else if (known) for (const key of keys) known.add(key);
    else this.claimTypes.set(type, new Set(keys));
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.wakeRequested = false;
      const all = this.claimAll;
      const types = new Map(this.claimTypes);
      this.claimAll = false;
      this.claimTypes.clear();
      let full = false;
      try {
        for (const [type, registration] of this.handlers) {
          if (!all && !types.has(type)) continue;
          if (!this.running) continue;
          // New jobs only of keys this worker runs its limit of: nothing to claim for them now.
          const plan = registration.places.planClaim(all ? null : (types.get(type) ?? null));
          if (!plan) continue;
          const jobs = await this.claim(type, plan.limit, registration);
          for (const row of jobs) this.leases.set(row.id, row.lease_token!);
          const decisions = registration.places.claimed(plan, jobs);
          // All it asked for: more may be due, look again at once.
          if (decisions.some((decision) => decision.kind === "claim-again")) full = true;
          this.carryOut(decisions, type, registration);
        }
      } catch (error) {
        if (this.running) this.options.logger.error({ err: error }, "queue claim failed");
        this.undrain(undefined);
        this.claimAll = true;
        this.nextDue.forgetAll();
        await this.sleep(this.pollMs);
        continue;
      }
      if (full || this.wakeRequested || !this.running) continue;
      // Woken by nothing before the next due job (or the safety poll): look at every type.
      if (!(await this.sleep(await this.msUntilNextDue()))) {
        // Jobs scheduled for later (retries) may be due now: claimed before new ones are handed over.
        this.undrain(undefined);
        this.claimAll = true;
        this.nextDue.forgetAll();
      }
    }
  }

  private async claim(type: string, limit: number, registration: Registration): Promise<JobsTable[]> {
    const token = `${this.workerId}.${++this.claimCounter}`;
    const { places } = registration;
    return this.options.dialect.claim(this.options.db, {
      type,
      limit,
      now: this.options.clock.now(),
      leaseMs: this.leaseMs,
      token,
      busyKeys: places.busyKeys(),
      perKey: places.perKey,
    });
  }

  private announceClaim(row: JobsTable, registration: Registration): void {
    if (!registration.onClaimed) return;
    try {
      registration.onClaimed(JSON.parse(row.payload));
    } catch (error) {
      this.options.logger.warn({ err: error, jobId: row.id }, "onClaimed failed"); // the job still runs
    }
  }

  private startJob(row: JobsTable, registration: Registration, key: string | null): void {
    let keyHeld = key !== null;
    // The job's place under its key, given to the next waiting job at most once per job.
    const keyStillHeld = () => {
      const held = keyHeld ? key : null;
      keyHeld = false;
      return held;
    };
    const run = this.runJob(row, registration, () => {
      const held = keyStillHeld();
      if (held !== null) this.carryOut(registration.places.releaseKey(held), row.type, registration);
    }).finally(() => {
      this.leases.delete(row.id);
      this.inFlight.delete(run);
      this.carryOut(registration.places.finished(keyStillHeld(), this.running), row.type, registration);
    });
    this.inFlight.add(run);
  }

  /** On stop: jobs still queued here are made free again, for any worker to claim at once. */
  private async returnQueuedHere(): Promise<void> {
    const rows = [...this.handlers.values()].flatMap((registration) => registration.places.takeQueuedHere());
    if (rows.length === 0) return;
    for (const row of rows) this.leases.delete(row.id);
    try {
      await returnUnstartedJobs(this.options.db, rows);
    } catch (error) {
      // Their leases run out instead, and they are claimed then.
      this.options.logger.warn({ err: error }, "could not return waiting jobs to the queue");
    }
  }

  private async runJob(row: JobsTable, registration: Registration, releaseKey: () => void): Promise<void> {
    const token = row.lease_token!;
    // Set once `complete` removed the job in the handler's transaction, so it is not removed
    // again here. Should that transaction roll back and the handler still return, the job
    // stays leased and runs again once its lease expires (at least once, never lost).
    let completedByHandler = false;
    const complete = async (db: Kysely<Database>) => {
      await completeJob(db, { id: row.id, token });
      completedByHandler = true;
    };
    // Claimed for one attempt more than its type allows: the attempt before neither finished nor
    // failed, its lease ran out (its worker died or lost the job, perhaps to this very job).
    // Running it again could kill this worker too; it is dead instead.
    if (row.attempts > registration.maxAttempts) {
      const lastError = `attempt ${row.attempts - 1} of ${registration.maxAttempts} never finished (its lease ran out: the worker died or lost the job)${row.last_error ? `; the error before: ${row.last_error}` : ""}`;
      await this.bury(row, token, lastError).catch((error) =>
        this.options.logger.error({ err: error, jobId: row.id }, "could not move a dead job out of the queue"),
      );
      return;
    }
    const job: Job = {
      id: row.id,
      type: row.type,
      payload: JSON.parse(row.payload),
      userId: row.user_id,
      attempts: row.attempts,
      signal: this.abort.signal,
      complete,
      releaseKey,
      lease: { id: row.id, token },
    };
    let outcome: Awaited<ReturnType<JobHandler>>;
    try {
      outcome = await registration.handler(job);
    } catch (error) {
      const err = toError(error);
      const last = row.attempts >= registration.maxAttempts;
      if (this.running)
        this.options.logger.warn(
          { err, jobId: row.id, type: row.type, attempts: row.attempts },
          last ? "job failed" : "job failed; will retry",
        );
      const failed = last
        ? this.bury(row, token, err.message)
        : this.reschedule(row, token, this.options.clock.now() + this.retryBackoffMs(row.attempts), err.message);
      await failed.catch(() => undefined);
      return;
    }
    try {
      if (outcome && "retryAt" in outcome) {
        if (row.attempts >= registration.maxAttempts)
          await this.bury(row, token, `asked for another attempt after attempt ${row.attempts} of ${registration.maxAttempts}`);
        else await this.reschedule(row, token, outcome.retryAt, null);
      } else if (!completedByHandler && !(outcome && "completed" in outcome)) await this.finished.add({ id: row.id, token });
    } catch (error) {
      // The lease runs out and the job is retried: at least once, never lost.
      if (this.running) this.options.logger.error({ err: error, jobId: row.id }, "could not finish job");
    }
  }

  /** Takes a job that used up its attempts out of the queue (dead-jobs.ts), for an operator to see and retry. */
  private async bury(row: JobsTable, token: string, lastError: string): Promise<void> {
    if (await buryJob(this.options.db, { id: row.id, token }, lastError, this.options.clock.now())) {
      this.options.logger.error(
        { jobId: row.id, type: row.type, attempts: row.attempts, lastError },
        "job is dead: no attempts left (see GET /v1/admin/jobs?state=dead)",
      );
    }
  }

  private async reschedule(row: JobsTable, token: string, runAt: number, lastError: string | null): Promise<void> {
    await rescheduleJob(this.options.db, { id: row.id, token }, runAt, lastError);
    // Its type's next-due time changed (a leased job counted until its lease's end). Without
    // this, a wake-up timer that fires a millisecond early (Node's timers start from the
    // loop's cached time) found nothing to claim, and the loop slept until that old time.
    this.nextDue.markStale(row.type);
    // Only this job's type can have become due: wake for it alone, not for every type. It
    // waits in the database, so it goes before jobs handed over after it is due.
    const delay = runAt - this.options.clock.now();
    if (this.running && delay < this.pollMs)
      setTimeout(() => this.jobsAdded({ types: [row.type], dueNow: true }), Math.max(0, delay)).unref();
  }

  /** Extends the leases of jobs still running here, so long handlers are not taken over. */
  private async renewLeases(): Promise<void> {
    const tokens = [...new Set(this.leases.values())];
    if (tokens.length === 0) return;
    try {
      await renewLeases(this.options.db, tokens, this.options.clock.now() + this.leaseMs);
    } catch (error) {
      if (this.running) this.options.logger.warn({ err: error }, "could not renew job leases");
    }
  }

  /**
   * Until the earliest job becomes claimable (due, or its lease expires), capped by the poll.
   * Jobs of keys at their limit here do not count: a completion of that key wakes the loop.
   */
  private async msUntilNextDue(): Promise<number> {
    let next: number;
    try {
      next = await this.nextDue.earliest(this.handlers.keys(), this.options.clock.now(), (type) => this.queryNextDue(type));
    } catch {
      this.nextDue.forgetAll();
      return this.pollMs;
    }
    if (next === Infinity) return this.pollMs;
    return Math.max(0, Math.min(this.pollMs, next - this.options.clock.now() + 1));
  }

  private async queryNextDue(type: string): Promise<number> {
    const next = await this.options.dialect.nextDue(this.options.db, type, (this.handlers.get(type) as Registration).places.busyKeys());
    return next ?? Infinity;
  }

  /** Resolves true when woken, false when the time ran out. */
  private sleep(ms: number): Promise<boolean> {
    if (this.wakeRequested || !this.running) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      const done = (woken: boolean) => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve(woken);
      };
      this.wakeUp = () => done(true);
    });
  }
}
