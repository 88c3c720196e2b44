// Claims timers that are due and queues their runs. A claim moves next_run_at forward with a
// compare-and-set on its old value, in the same transaction as the queued job, so a timer
// fires once even with several scheduler processes on one PostgreSQL. After downtime the
// next run is computed from now: one catch-up run, not a burst.
import type { Ctx } from "../domain/context.js";
import { SOURCE_TIMER_JOB, type TimerJobPayload } from "../domain/sources/source-jobs.js";
import { nextRunAfter } from "../domain/sources/timer-spec.js";
import { toUnixSeconds } from "../lib/clock.js";
import type { JobQueue } from "../queue/contract.js";

/** Returns the ids of the sources whose timers this call fired. */
export async function fireDueTimers(ctx: Ctx, queue: JobQueue, batch = 200): Promise<string[]> {
  const now = ctx.clock.now();
  const due = await ctx.db
    .selectFrom("sources")
    .select(["id", "user_id", "next_run_at", "timer_interval_seconds", "timer_cron"])
    .where("next_run_at", "<=", now)
    .where("active", "=", 1)
    .orderBy("next_run_at", "asc")
    .limit(batch)
    .execute();
  const fired: string[] = [];
  for (const timer of due) {
    const previous = Number(timer.next_run_at);
    const spec = { intervalSeconds: timer.timer_interval_seconds, cron: timer.timer_cron };
    let next = nextRunAfter(spec, previous);
    if (next <= now) next = nextRunAfter(spec, now);
    const claimed = await ctx.db.transaction().execute(async (tx) => {
      const result = await tx.updateTable("sources").set({ next_run_at: next }).where("id", "=", timer.id).where("next_run_at", "=", previous).executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      const payload: TimerJobPayload = { sourceId: timer.id, timestamp: toUnixSeconds(now) };
      await queue.enqueue(tx, [{ type: SOURCE_TIMER_JOB, userId: timer.user_id, payload }]);
      return true;
    });
    if (claimed) fired.push(timer.id);
  }
  return fired;
}
