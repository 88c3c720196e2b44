// The bookkeeping of one job type in one worker, without I/O: how many of its jobs this worker
// holds, which wait for their concurrency key, which are queued here for a free place, and
// whether new jobs may be handed to it directly. Every change returns the decisions it leads
// to (announce a claimed job, run one, look for more), and db-job-queue.ts carries them out,
// so the rules can be tested without a database or timers (test/queue/type-places.test.ts).
import type { JobsTable } from "../store/schema.js";

/** What the queue does after a change of a type's places, in order. */
export type Decision =
  /** Tell the type's `onClaimed` about the job (it is now held to run, perhaps after its key frees). */
  | { kind: "announce"; row: JobsTable }
  /** Run the job's handler now; `key` is the concurrency key it holds a place under (null: none). */
  | { kind: "run"; row: JobsTable; key: string | null }
  /** Claim this type again at once: a place or a key a claim was short of is free now. */
  | { kind: "wake" }
  /** The claim took all it asked for: more may be due, look again without sleeping. */
  | { kind: "claim-again" }
  /** The claim stopped at a key it filled: jobs of other keys may be due beyond its scan. */
  | { kind: "recheck-next-due" };

/** What a claim of this type may take, and what it is measured against when it returns. */
export interface ClaimPlan {
  /** Places free when the claim started: that many claimed jobs are started, the rest queued here. */
  free: number;
  limit: number;
  /** Additions by others seen before the claim: one that overlaps it means the type is not drained. */
  additions: number;
}

/**
 * How many leased jobs a type may hold queued here, waiting for a place, per place. Without
 * them, under a load that fills every place, each job past them was inserted free, and from
 * then on every new job too (they must not pass the ones in the database), each claimed back
 * as a place freed: a claim per few jobs, each an UPDATE that scans and sorts the due jobs
 * (about a quarter of a millisecond), so a worker that fell behind stayed behind while the
 * load lasted. With jobs queued here, a full worker keeps a few handed-over jobs, and a claim
 * takes jobs from the database a queue's worth at a time, so the database's backlog is soon
 * taken and hand-overs resume (ADR 0028). Jobs past that wait in the database for any worker.
 */
export const QUEUED_HERE_PER_PLACE = 1;

export class TypePlaces {
  /** Jobs of this type held by this worker: running, or waiting for their key. */
  running = 0;
  /** Per concurrency key: jobs running under it. */
  private readonly runningByKey = new Map<string, number>();
  /** Claimed beyond their key's limit (a claim may overshoot a partly busy key). */
  private readonly waitingByKey = new Map<string, JobsTable[]>();
  /**
   * Jobs leased here that wait for a place (types without per-key limits), started oldest
   * first as places free up: handed over while every place was taken, or claimed beyond the
   * free places (QUEUED_HERE_PER_PLACE).
   */
  private readonly queuedHere: JobsTable[] = [];
  /** Handed over to be queued here, their enqueuing transaction not ended yet. */
  private readonly queuedHereReserved = new Set<JobsTable>();
  /**
   * The last claim found fewer due jobs than it could take, and no job was added for others
   * to claim since: new jobs of this process may be handed to it directly (local-handoff.ts)
   * without passing jobs that wait in the database.
   */
  drained = false;
  /** Counts additions by others, so a claim that overlapped one does not mark the type drained. */
  private additions = 0;

  /**
   * @param concurrency jobs of this type held at once (running or waiting for their key)
   * @param perKey per concurrency key, at most this many run at once (0: no limit)
   */
  constructor(
    readonly concurrency: number,
    readonly perKey: number,
  ) {}

  /** Jobs were added for any worker to claim: they come before hand-offs. */
  jobsAdded(): void {
    this.drained = false;
    this.additions++;
  }

  /** Jobs waiting here for a place, not running yet. */
  get queuedHereCount(): number {
    return this.queuedHere.length;
  }

  /**
   * What a claim may take now; undefined when none is worth making: no place is free, or the
   * only keys that got new jobs are all at their limit here (the claim would skip them; a
   * release of such a key wakes the loop again). `keys` null: any key.
   */
  planClaim(keys: ReadonlySet<string> | null): ClaimPlan | undefined {
    const free = this.concurrency - this.running;
    if (free <= 0) return undefined;
    if (keys && this.allBusy(keys)) return undefined;
    // Claimed beyond the free places, queued here: jobs that waited in the database are taken
    // a queue's worth at a time, not a place at a time, and once they are all taken new jobs
    // are handed over again (drained).
    return { free, limit: free + this.queuedHereRoom(), additions: this.additions };
  }

  /** The claim's rows arrived (leased to this worker): the first `free` are held to run, the rest queued here. */
  claimed(plan: ClaimPlan, rows: readonly JobsTable[]): Decision[] {
    if (rows.length < plan.limit && this.additions === plan.additions) this.drained = true;
    const decisions: Decision[] = [];
    rows.forEach((row, i) => (i < plan.free ? this.hold(row, decisions) : this.queuedHere.push(row)));
    if (rows.length === plan.limit) decisions.push({ kind: "claim-again" });
    else if (reachedKeyCap(rows, this.perKey)) decisions.push({ kind: "recheck-next-due" });
    return decisions;
  }

  /**
   * A job of this process is offered as it is enqueued: whether it is taken (a place or a
   * spot queued here is held for it). Only a drained type takes jobs, so none passes jobs
   * that wait in the database. A taken job is followed by `startReserved` or `releaseReserved`.
   */
  reserve(row: JobsTable): boolean {
    if (!this.drained) return false;
    if (this.running >= this.concurrency) {
      if (this.queuedHereRoom() <= 0) return false;
      this.queuedHereReserved.add(row);
      return true;
    }
    const key = this.keyOf(row);
    if (key !== null && this.heldOf(key) >= this.perKey) return false;
    this.running++;
    if (key !== null) this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
    return true;
  }

  /** The enqueuing transaction of a reserved job committed. */
  startReserved(row: JobsTable): Decision[] {
    if (this.queuedHereReserved.delete(row)) {
      this.queuedHere.push(row);
      return this.startQueuedHere(true); // a place may have freed since it was reserved
    }
    return [
      { kind: "announce", row },
      { kind: "run", row, key: this.keyOf(row) },
    ];
  }

  /** A reserved job's transaction rolled back, or the queue stopped before it started: its place is free again. */
  releaseReserved(row: JobsTable): Decision[] {
    if (this.queuedHereReserved.delete(row)) return [];
    this.running--;
    const key = this.keyOf(row);
    const decisions: Decision[] = [];
    if (key !== null) this.passKeyPlace(key, decisions);
    decisions.push({ kind: "wake" });
    return decisions;
  }

  /**
   * A running job gave up its place under `key` before finishing (Job.releaseKey): the next
   * job waiting for that key runs; a claim may find more of the key if it was at its limit.
   */
  releaseKey(key: string): Decision[] {
    const decisions: Decision[] = [];
    if (this.passKeyPlace(key, decisions)) decisions.push({ kind: "wake" });
    return decisions;
  }

  /**
   * A job finished (its handler ended). `key`: the key it still held a place under (null:
   * none, or released already). `mayStart`: whether the queue still starts jobs (not stopping).
   */
  finished(key: string | null, mayStart: boolean): Decision[] {
    // Claiming again only helps when this frees something a claim was short of: a slot of a
    // full type with jobs left in the database (not drained: once drained, new jobs come by
    // hand-over or wake the loop themselves), or a key that was at its limit (claims skip
    // such keys, so drained says nothing of them). Other wake-ups come from new jobs and timers.
    const wasFull = this.running >= this.concurrency;
    this.running--;
    const decisions: Decision[] = [];
    const keyFreed = key !== null && this.passKeyPlace(key, decisions);
    const started = this.startQueuedHere(mayStart);
    if (started.length > 0) return [...decisions, ...started];
    if (keyFreed || (wasFull && !this.drained)) decisions.push({ kind: "wake" });
    return decisions;
  }

  /** On stop: the jobs queued here, taken out, to be made free again for any worker. */
  takeQueuedHere(): JobsTable[] {
    return this.queuedHere.splice(0);
  }

  /**
   * Keys skipped by claims: those this worker holds (runs or has waiting) its limit of, so a
   * key holds at most twice its limit and its next job starts without waiting for a claim.
   */
  busyKeys(): string[] {
    if (this.perKey <= 0) return [];
    return [...this.runningByKey.keys()].filter((key) => this.heldOf(key) >= this.perKey);
  }

  private allBusy(keys: ReadonlySet<string>): boolean {
    if (this.perKey <= 0) return false;
    for (const key of keys) if (this.heldOf(key) < this.perKey) return false;
    return true;
  }

  private heldOf(key: string): number {
    return (this.runningByKey.get(key) ?? 0) + (this.waitingByKey.get(key)?.length ?? 0);
  }

  /** The key a job of this type holds a place under: none for types without per-key limits. */
  private keyOf(row: JobsTable): string | null {
    return this.perKey > 0 ? row.concurrency_key : null;
  }

  /** A claimed job takes a place: it runs at once, or waits for its key's place. */
  private hold(row: JobsTable, decisions: Decision[]): void {
    this.running++;
    decisions.push({ kind: "announce", row });
    const key = this.keyOf(row);
    if (key !== null) {
      const running = this.runningByKey.get(key) ?? 0;
      if (running >= this.perKey) {
        const waiting = this.waitingByKey.get(key);
        if (waiting) waiting.push(row);
        else this.waitingByKey.set(key, [row]);
        return;
      }
      this.runningByKey.set(key, running + 1);
    }
    decisions.push({ kind: "run", row, key });
  }

  /**
   * A job gives up its place under `key`: to the next job waiting for it, else the key holds
   * one fewer. Whether the key was at its limit before (a claim may now find more of it).
   */
  private passKeyPlace(key: string, decisions: Decision[]): boolean {
    const waiting = this.waitingByKey.get(key);
    const heldBefore = (this.runningByKey.get(key) ?? 0) + (waiting?.length ?? 0);
    const next = waiting?.shift();
    if (waiting?.length === 0) this.waitingByKey.delete(key);
    if (next) decisions.push({ kind: "run", row: next, key });
    else {
      const left = (this.runningByKey.get(key) ?? 1) - 1;
      if (left > 0) this.runningByKey.set(key, left);
      else this.runningByKey.delete(key);
    }
    return heldBefore === this.perKey;
  }

  /** Room left queued here (none for types with per-key limits: their keys wait apart). */
  private queuedHereRoom(): number {
    if (this.perKey > 0) return 0;
    return Math.max(0, this.concurrency * QUEUED_HERE_PER_PLACE - this.queuedHere.length - this.queuedHereReserved.size);
  }

  /** Starts the oldest job queued here if a place is free. */
  private startQueuedHere(mayStart: boolean): Decision[] {
    if (!mayStart || this.queuedHere.length === 0 || this.running >= this.concurrency) return [];
    const row = this.queuedHere.shift()!;
    this.running++;
    return [
      { kind: "announce", row },
      { kind: "run", row, key: null },
    ];
  }
}

/** Whether a claim took as many jobs of some key as one claim may. */
function reachedKeyCap(jobs: readonly JobsTable[], perKey: number): boolean {
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
