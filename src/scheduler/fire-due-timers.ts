// Claims timers that are due and queues their runs. A claim moves next_run_at forward with a
// compare-and-set on its old value, in the same transaction as the queued job, so a timer
// fires once even with several scheduler processes on one PostgreSQL. After downtime the
// next run is computed from now: one catch-up run, not a burst.
//
// A whole batch is claimed in one transaction of three statements (select, one compare-and-
// set update, one insert of the jobs): with 10,000 timers a transaction per timer made the
// scheduler itself the bottleneck. On PostgreSQL the select locks its rows and skips rows
// another scheduler holds, so schedulers claim disjoint batches instead of queueing behind
// each other's locks.
//
// With `lookaheadMs` a timer is claimed a little before it is due and its job is queued to
// run at the due time (the queue wakes for it then): how often the scheduler looks no longer
// adds to how late a run starts.
import { sql } from "kysely";
import type { Ctx } from "../domain/context.js";
import { SOURCE_TIMER_JOB, type TimerJobPayload } from "../domain/sources/source-jobs.js";
import { nextRunAfter } from "../domain/sources/timer-spec.js";
import { toUnixSeconds } from "../lib/clock.js";
import type { JobQueue, NewJob } from "../queue/job-queue.js";

export interface FireOptions {
  /** Most timers claimed in one transaction. */
  batch?: number;
  /** Also claim timers due within this many milliseconds; their runs are queued for the due time. */
  lookaheadMs?: number;
}

interface Claim {
  id: string;
  userId: string;
  previous: number;
  next: number;
  runAt: number;
}

/** Returns the ids of the sources whose timers this call fired (claimed and queued). */
export async function fireDueTimers(ctx: Ctx, queue: JobQueue, options: FireOptions = {}): Promise<string[]> {
  const batch = options.batch ?? 500;
  const now = ctx.clock.now();
  const horizon = now + Math.max(0, options.lookaheadMs ?? 0);
  return ctx.db.transaction().execute(async (tx) => {
    const select = ctx.storage.lockForClaim(
      tx
        .selectFrom("sources")
        .select(["id", "user_id", "next_run_at", "timer_interval_seconds", "timer_cron"])
        .where("next_run_at", "<=", horizon)
        .where("active", "=", 1)
        .orderBy("next_run_at", "asc")
        .limit(batch),
    );
    const due = await select.execute();
    if (due.length === 0) return [];

    const claims: Claim[] = due.map((timer) => {
      const previous = Number(timer.next_run_at);
      const spec = { intervalSeconds: timer.timer_interval_seconds, cron: timer.timer_cron };
      let next = nextRunAfter(spec, previous);
      if (next <= now) next = nextRunAfter(spec, now);
      return { id: timer.id, userId: timer.user_id, previous, next, runAt: Math.max(previous, now) };
    });
    // One statement claims the batch: each row moves to its next run only if it still holds
    // the due time this transaction read (compare-and-set), and says so by being returned.
    const byId = (value: (claim: Claim) => number) =>
      sql<number>`case ${sql.ref("id")} ${sql.join(
        claims.map((claim) => sql`when ${claim.id} then cast(${value(claim)} as bigint)`),
        sql` `,
      )} end`;
    const updated = await tx
      .updateTable("sources")
      .set({ next_run_at: byId((claim) => claim.next) })
      .where(
        "id",
        "in",
        claims.map((claim) => claim.id),
      )
      .where(
        "next_run_at",
        "=",
        byId((claim) => claim.previous),
      )
      .returning("id")
      .execute();
    const won = new Set(updated.map((row) => row.id));
    const jobs: NewJob[] = claims
      .filter((claim) => won.has(claim.id))
      .map((claim) => {
        // The run event's timestamp is when the run is due (now, for a catch-up run).
        const payload: TimerJobPayload = { sourceId: claim.id, timestamp: toUnixSeconds(claim.runAt) };
        return { type: SOURCE_TIMER_JOB, userId: claim.userId, concurrencyKey: claim.userId, payload, runAt: claim.runAt };
      });
    await queue.enqueue(tx, jobs);
    for (const claim of claims) if (won.has(claim.id)) ctx.metrics.timerLag(now - claim.previous);
    return jobs.map((job) => (job.payload as TimerJobPayload).sourceId);
  });
}
