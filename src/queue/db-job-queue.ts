// The job queue over the database: a worker loop that claims due jobs under a lease, runs
// their handlers with a per-type concurrency limit, keeps leases alive while handlers run,
// and finishes or reschedules each job only while it still holds that job's lease.
import { setMaxListeners } from "node:events";
import { sql, type Kysely } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../lib/clock.js";
import { toError } from "../lib/errors.js";
import { randomString } from "../lib/ids.js";
import type { Database, JobsTable } from "../store/schema.js";
import type { HandleOptions, Job, JobHandler, JobLease, JobQueue, NewJob } from "./job-queue.js";
import { createBatcher } from "./batcher.js";
import { completeJobs } from "./complete-jobs.js";
import { buryJob } from "./dead-jobs.js";
import { enqueueJobs } from "./enqueue.js";
import type { QueueDialect } from "./queue-dialect.js";
import { registerLocalWorker, type LocalWorker } from "./local-handoff.js";
import { onJobsAdded, type WakeSignal } from "./wake.js";
import { NextDueCache } from "./next-due-cache.js";

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
  concurrency: number;
  /** A job claimed for a later attempt than this is dead, and so is one that fails or asks for another at it. */
  maxAttempts: number;
  /** Claimed jobs of this type held by this worker (running or waiting for their key). */
  running: number;
  /** Per concurrency key: at most this many run at once (0: no limit). */
  perKey: number;
  runningByKey: Map<string, number>;
  /** Claimed beyond their key's limit (a claim may overshoot a partly busy key). */
  waitingByKey: Map<string, JobsTable[]>;
  /**
   * Jobs leased here that wait for a place (types without per-key limits), started oldest
   * first as places free up: handed over while every place was taken, or claimed beyond the
   * free places (see LINE_PER_PLACE).
   */
  line: JobsTable[];
  /** Handed over into the line, their enqueuing transaction not ended yet. */
  lineReserved: Set<JobsTable>;
  onClaimed?: (payload: unknown) => void;
  /**
   * The last claim found fewer due jobs than it could take, and no job was added for others
   * to claim since: new jobs of this process may be handed to it directly (local-handoff.ts)
   * without passing jobs that wait in the database.
   */
  drained: boolean;
  /** Counts additions by others, so a claim that overlapped one does not mark the type drained. */
  additions: number;
}

const MAX_ERROR_BACKOFF_MS = 10 * 60_000;
/** SLUICE_JOB_MAX_ATTEMPTS's default (DESIGN §11): at the backoff's ten-minute cap, about three hours of tries. */
export const DEFAULT_MAX_ATTEMPTS = 25;
/**
 * How many leased jobs a type may hold waiting for a place, per place. Without a line, under
 * a load that fills every place, each job past them was inserted free, and from then on every
 * new job too (they must not pass the ones in the database), each claimed back as a place
 * freed: a claim per few jobs, each an UPDATE that scans and sorts the due jobs (about a
 * quarter of a millisecond), so a worker that fell behind stayed behind while the load
 * lasted. With a line, a full worker keeps a few handed-over jobs, and a claim takes jobs
 * from the database a line at a time, so the backlog is soon taken and hand-overs resume.
 * Jobs past the line wait in the database for any worker, as before.
 */
const LINE_PER_PLACE = 1;

/** Retry delay after a handler threw: exponential in the attempt number, with jitter. */
export function errorBackoffMs(attempts: number): number {
  const base = Math.min(MAX_ERROR_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Whether a claim took as many jobs of some key as one claim may. */
function reachedKeyCap(jobs: JobsTable[], perKey: number): boolean {
  if (perKey <= 0 || jobs.length < perKey) return false;
  const counts = new Map<string, number>();
  for (const job of jobs) {
    if (job.concurrency_key === null) continue;
    const count = (counts.get(job.concurrency_key) ?? 0) + 1;
    if (count >= perKey) return true;
    counts.set(job.concurrency_key, count);
  }
  return false;
}

export class DbJobQueue implements JobQueue {
  private readonly handlers = new Map<string, Registration>();
  /** Jobs this worker runs now or holds in a line: id → lease token. */
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
      concurrency: options.concurrency ?? this.defaultConcurrency,
      maxAttempts: options.maxAttempts ?? this.maxAttempts,
      running: 0,
      perKey: options.perKeyConcurrency ?? 0,
      runningByKey: new Map(),
      waitingByKey: new Map(),
      line: [],
      lineReserved: new Set(),
      onClaimed: options.onClaimed,
      drained: false,
      additions: 0,
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
    await this.returnLines();
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
      registration.drained = false;
      registration.additions++;
    }
  }

  /** What this process's enqueues hand over (local-handoff.ts). */
  private readonly localWorker: LocalWorker = {
    reserve: (row, now) => {
      const registration = this.handlers.get(row.type);
      if (!this.running || !registration?.drained) return false;
      if (registration.running >= registration.concurrency) {
        if (this.lineRoom(registration) <= 0) return false;
        registration.lineReserved.add(row);
      } else {
        const key = registration.perKey > 0 ? row.concurrency_key : null;
        if (key !== null && this.heldOf(key, registration) >= registration.perKey) return false;
        registration.running++;
        if (key !== null) registration.runningByKey.set(key, (registration.runningByKey.get(key) ?? 0) + 1);
      }
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
          this.releaseReserved(row, registration);
          continue;
        }
        if (registration.lineReserved.delete(row)) {
          this.addToLine(row, registration);
          this.startFromLine(registration); // a place may have freed since it was reserved
          continue;
        }
        this.leases.set(row.id, row.lease_token!);
        this.announceClaim(row, registration);
        this.startJob(row, registration, registration.perKey > 0 ? row.concurrency_key : null);
      }
    },
    release: (rows) => {
      for (const row of rows) this.releaseReserved(row, this.handlers.get(row.type) as Registration);
    },
  };

  private releaseReserved(row: JobsTable, registration: Registration): void {
    if (registration.lineReserved.delete(row)) return;
    registration.running--;
    const key = registration.perKey > 0 ? row.concurrency_key : null;
    if (key !== null) this.passKeyPlace(registration, key);
    this.wake([row.type], true);
  }

  /**
   * A job gives up its place under `key`: to the next job waiting for it, else the key holds
   * one fewer. Whether the key was at its limit before (a claim may now find more of it).
   */
  private passKeyPlace(registration: Registration, key: string): boolean {
    const waiting = registration.waitingByKey.get(key);
    const heldBefore = (registration.runningByKey.get(key) ?? 0) + (waiting?.length ?? 0);
    const next = waiting?.shift();
    if (waiting?.length === 0) registration.waitingByKey.delete(key);
    if (next) this.startJob(next, registration, key);
    else {
      const left = (registration.runningByKey.get(key) ?? 1) - 1;
      if (left > 0) registration.runningByKey.set(key, left);
      else registration.runningByKey.delete(key);
    }
    return heldBefore === registration.perKey;
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
          const free = registration.concurrency - registration.running;
          if (free <= 0 || !this.running) continue;
          // New jobs only of keys this worker runs its limit of: nothing to claim for them now
          // (the claim would skip them); the release of such a key wakes the loop again.
          const keys = all ? null : types.get(type);
          if (keys && this.allBusy(keys, registration)) continue;
          const additions = registration.additions;
          // Claimed beyond the free places, into the line: jobs that waited in the database
          // are taken a line at a time, not a place at a time, and once they are all taken new
          // jobs are handed over again (drained).
          const limit = free + this.lineRoom(registration);
          const jobs = await this.claim(type, limit, registration);
          if (jobs.length < limit && registration.additions === additions) registration.drained = true;
          jobs.forEach((row, i) => (i < free ? this.dispatch(row, registration) : this.addToLine(row, registration)));
          if (jobs.length === limit) {
            full = true;
            this.addClaimType(type, undefined); // more may be due: look again at once
          } else if (reachedKeyCap(jobs, registration.perKey)) {
            // The claim stopped at a key it just filled; other keys' jobs may be due beyond
            // its scan, so the next-due time is looked up again (now skipping that key).
            this.nextDue.markStale(type);
          }
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
    const busyKeys = this.busyKeys(registration);
    return this.options.dialect.claim(this.options.db, { type, limit, now: this.options.clock.now(), leaseMs: this.leaseMs, token, busyKeys, perKey: registration.perKey });
  }

  /**
   * Keys skipped by claims: those this worker holds (runs or has waiting) its limit of, so a
   * key holds at most twice its limit and its next job starts without waiting for a claim.
   */
  private busyKeys(registration: Registration): string[] {
    if (registration.perKey <= 0) return [];
    return [...registration.runningByKey.keys()].filter((key) => this.heldOf(key, registration) >= registration.perKey);
  }

  private allBusy(keys: Set<string>, registration: Registration): boolean {
    if (registration.perKey <= 0) return false;
    for (const key of keys) if (this.heldOf(key, registration) < registration.perKey) return false;
    return true;
  }

  private heldOf(key: string, registration: Registration): number {
    return (registration.runningByKey.get(key) ?? 0) + (registration.waitingByKey.get(key)?.length ?? 0);
  }

  private dispatch(row: JobsTable, registration: Registration): void {
    registration.running++;
    this.leases.set(row.id, row.lease_token!);
    this.announceClaim(row, registration);
    const key = registration.perKey > 0 ? row.concurrency_key : null;
    if (key !== null) {
      const running = registration.runningByKey.get(key) ?? 0;
      if (running >= registration.perKey) {
        const waiting = registration.waitingByKey.get(key);
        if (waiting) waiting.push(row);
        else registration.waitingByKey.set(key, [row]);
        return;
      }
      registration.runningByKey.set(key, running + 1);
    }
    this.startJob(row, registration, key);
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
    // Gives the job's place under its key to the next waiting job, at most once per job.
    const releaseKey = () => {
      if (!keyHeld || key === null) return false;
      keyHeld = false;
      return this.passKeyPlace(registration, key);
    };
    const run = this.runJob(row, registration, () => {
      if (releaseKey()) this.wake([row.type], true);
    }).finally(() => {
      // Claiming again only helps when this frees something a claim was short of: a slot of
      // a full type with jobs left in the database (not drained: once drained, new jobs come
      // by hand-over or wake the loop themselves), or a key that was at its limit (claims
      // skip such keys, so drained says nothing of them). Other wake-ups come from new jobs
      // and timers.
      const wasFull = registration.running >= registration.concurrency;
      registration.running--;
      this.leases.delete(row.id);
      this.inFlight.delete(run);
      const keyFreed = releaseKey();
      if (this.startFromLine(registration)) return;
      if (keyFreed || (wasFull && !registration.drained)) this.wake([row.type], true);
    });
    this.inFlight.add(run);
  }

  /** Room left in the type's line (none for types with per-key limits: their keys wait apart). */
  private lineRoom(registration: Registration): number {
    if (registration.perKey > 0) return 0;
    return Math.max(0, registration.concurrency * LINE_PER_PLACE - registration.line.length - registration.lineReserved.size);
  }

  private addToLine(row: JobsTable, registration: Registration): void {
    this.leases.set(row.id, row.lease_token!);
    registration.line.push(row);
  }

  /** Starts the oldest job of the type's line if a place is free; whether it did. */
  private startFromLine(registration: Registration): boolean {
    if (!this.running || registration.line.length === 0 || registration.running >= registration.concurrency) return false;
    const row = registration.line.shift()!;
    registration.running++;
    this.announceClaim(row, registration);
    this.startJob(row, registration, null);
    return true;
  }

  /** On stop: jobs still in a line are made free again, for any worker to claim at once. */
  private async returnLines(): Promise<void> {
    const rows = [...this.handlers.values()].flatMap((registration) => registration.line.splice(0));
    if (rows.length === 0) return;
    for (const row of rows) this.leases.delete(row.id);
    try {
      await this.options.db
        .updateTable("jobs")
        .set({ lease_token: null, locked_until: null, attempts: sql<number>`attempts - 1` })
        .where("id", "in", rows.map((row) => row.id))
        .where("lease_token", "in", rows.map((row) => row.lease_token!))
        .execute();
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
      const result = await db.deleteFrom("jobs").where("id", "=", row.id).where("lease_token", "=", token).executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) throw new Error(`job ${row.id} is no longer leased by this worker`);
      completedByHandler = true;
    };
    // Claimed for one attempt more than its type allows: the attempt before neither finished nor
    // failed, its lease ran out (its worker died or lost the job, perhaps to this very job).
    // Running it again could kill this worker too; it is dead instead.
    if (row.attempts > registration.maxAttempts) {
      const lastError = `attempt ${row.attempts - 1} of ${registration.maxAttempts} never finished (its lease ran out: the worker died or lost the job)${row.last_error ? `; the error before: ${row.last_error}` : ""}`;
      await this.bury(row, token, lastError).catch((error) => this.options.logger.error({ err: error, jobId: row.id }, "could not move a dead job out of the queue"));
      return;
    }
    const job: Job = { id: row.id, type: row.type, payload: JSON.parse(row.payload), userId: row.user_id, attempts: row.attempts, signal: this.abort.signal, complete, releaseKey, lease: { id: row.id, token } };
    let outcome: Awaited<ReturnType<JobHandler>>;
    try {
      outcome = await registration.handler(job);
    } catch (error) {
      const err = toError(error);
      const last = row.attempts >= registration.maxAttempts;
      if (this.running) this.options.logger.warn({ err, jobId: row.id, type: row.type, attempts: row.attempts }, last ? "job failed" : "job failed; will retry");
      const failed = last ? this.bury(row, token, err.message) : this.reschedule(row, token, this.options.clock.now() + this.retryBackoffMs(row.attempts), err.message);
      await failed.catch(() => undefined);
      return;
    }
    try {
      if (outcome && "retryAt" in outcome) {
        if (row.attempts >= registration.maxAttempts) await this.bury(row, token, `asked for another attempt after attempt ${row.attempts} of ${registration.maxAttempts}`);
        else await this.reschedule(row, token, outcome.retryAt, null);
      }
      else if (!completedByHandler && !(outcome && "completed" in outcome)) await this.finished.add({ id: row.id, token });
    } catch (error) {
      // The lease runs out and the job is retried: at least once, never lost.
      if (this.running) this.options.logger.error({ err: error, jobId: row.id }, "could not finish job");
    }
  }

  /** Takes a job that used up its attempts out of the queue (dead-jobs.ts), for an operator to see and retry. */
  private async bury(row: JobsTable, token: string, lastError: string): Promise<void> {
    if (await buryJob(this.options.db, { id: row.id, token }, lastError, this.options.clock.now())) {
      this.options.logger.error({ jobId: row.id, type: row.type, attempts: row.attempts, lastError }, "job is dead: no attempts left (see GET /v1/admin/jobs?state=dead)");
    }
  }

  private async reschedule(row: JobsTable, token: string, runAt: number, lastError: string | null): Promise<void> {
    await this.options.db
      .updateTable("jobs")
      .set({ run_at: runAt, lease_token: null, locked_until: null, last_error: lastError })
      .where("id", "=", row.id)
      .where("lease_token", "=", token)
      .execute();
    // Its type's next-due time changed (a leased job counted until its lease's end). Without
    // this, a wake-up timer that fires a millisecond early (Node's timers start from the
    // loop's cached time) found nothing to claim, and the loop slept until that old time.
    this.nextDue.markStale(row.type);
    // Only this job's type can have become due: wake for it alone, not for every type. It
    // waits in the database, so it goes before jobs handed over after it is due.
    const delay = runAt - this.options.clock.now();
    if (this.running && delay < this.pollMs) setTimeout(() => this.jobsAdded({ types: [row.type], dueNow: true }), Math.max(0, delay)).unref();
  }

  /** Extends the leases of jobs still running here, so long handlers are not taken over. */
  private async renewLeases(): Promise<void> {
    const tokens = [...new Set(this.leases.values())];
    if (tokens.length === 0) return;
    try {
      await this.options.db
        .updateTable("jobs")
        .set({ locked_until: this.options.clock.now() + this.leaseMs })
        .where("lease_token", "in", tokens)
        .execute();
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
    const next = await this.options.dialect.nextDue(this.options.db, type, this.busyKeys(this.handlers.get(type) as Registration));
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
