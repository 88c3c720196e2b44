// Background work of sources, run by workers from the durable queue: HTTP requests accepted
// without a custom response, timer runs and event deletions; and the run a subscription's
// delivery causes (runSourceForDelivery, the "dc" listener handler main.ts builds).
import type { JobQueue, NewJob } from "../../queue/job-queue.js";
import { deleteEventRange, type EventRange } from "../events/delete-events.js";
import { quotaExceeded } from "../usage/quota.js";
import { recordSourceError, runSource, type RunRequest, type SourceDeps } from "./run-source.js";
import { runnableSource } from "./runnable-source.js";

export const SOURCE_RUN_JOB = "source.run";
export const SOURCE_TIMER_JOB = "source.timer";
export const EVENTS_DELETE_JOB = "events.delete";

/** A queued run of a source with an event (an accepted HTTP or apphook request). */
export const sourceRunJob = (userId: string, sourceId: string, event: unknown): NewJob => ({
  type: SOURCE_RUN_JOB,
  userId,
  payload: { sourceId, event },
});

/**
 * Accepted requests' runs in flight at once in a worker. A run holds its place from its start
 * to the commit of its events (a runner's round trip and a group commit, a few milliseconds
 * under load), so the places divided by that time bound the runs a worker completes per
 * second: the queue's default of 16 capped it near 5,000/s and every slow moment at that rate
 * became a backlog. The runner pool, not this number, decides how many processes run them.
 */
export const SOURCE_RUNS_IN_FLIGHT = 48;

/** Timer runs of one account in flight at once in a worker (the runners a pool keeps warm per account). */
export const TIMER_RUNS_PER_ACCOUNT = 2;

export interface TimerJobPayload {
  sourceId: string;
  timestamp: number; // unix seconds
}

export function registerSourceJobs(deps: SourceDeps & { queue: JobQueue }): void {
  const { ctx, queue } = deps;
  queue.handle(
    SOURCE_RUN_JOB,
    async (job) => {
      const source = await runnableSource(ctx, job.payload.sourceId);
      if (!source?.active) return;
      // The job completes in the transaction that stores the run's events: a crash cannot
      // make an accepted request emit twice.
      await runSource(deps, { sourceId: source.id, source, entry: "run", event: job.payload.event, inTransaction: job.complete });
    },
    { concurrency: SOURCE_RUNS_IN_FLIGHT },
  );
  // Timer jobs carry their account as concurrency key: one account's many or slow timers
  // cannot hold every slot while other accounts' runs come due, and a burst of due timers
  // starts no more runner processes per account than the pool keeps warm.
  queue.handle(
    SOURCE_TIMER_JOB,
    async (job) => {
      // Completed with the tick's events, as above: a worker killed after storing them leaves
      // no job behind to fire the tick a second time.
      await runTimer(deps, job.payload as TimerJobPayload, job.complete);
    },
    { perKeyConcurrency: TIMER_RUNS_PER_ACCOUNT },
  );
  queue.handle(EVENTS_DELETE_JOB, async (job) => {
    const payload = job.payload as { emitterId: string } & EventRange;
    await deleteEventRange(ctx.summaryPages, ctx.db, payload.emitterId, payload);
  });
}

/** A timer fired: run the source, or report on $errors that the quota skipped the run. */
export async function runTimer(deps: SourceDeps, payload: TimerJobPayload, complete?: RunRequest["inTransaction"]): Promise<void> {
  const source = await runnableSource(deps.ctx, payload.sourceId);
  if (!source?.active) return;
  const event = { timestamp: payload.timestamp, interval_seconds: source.intervalSeconds };
  const exceeded = await quotaExceeded(deps.ctx, source.userId);
  if (exceeded) {
    await recordSourceError(
      deps.ctx,
      source,
      { name: "QuotaExceeded", message: `scheduled run skipped: ${exceeded}`, stack: "" },
      event,
      complete,
    );
    return;
  }
  await runSource(deps, { sourceId: source.id, source, entry: "run", event, inTransaction: complete });
}

/** A subscription delivered an event to this source: run it with that event. */
export async function runSourceForDelivery(
  deps: SourceDeps,
  delivery: { listenerId: string; event: unknown; complete?: RunRequest["inTransaction"] },
): Promise<void> {
  const source = await runnableSource(deps.ctx, delivery.listenerId);
  if (!source?.active) return;
  const exceeded = await quotaExceeded(deps.ctx, source.userId);
  if (exceeded) {
    await recordSourceError(
      deps.ctx,
      source,
      { name: "QuotaExceeded", message: `delivered event skipped: ${exceeded}`, stack: "" },
      delivery.event,
      delivery.complete,
    );
    return;
  }
  // The delivery completes in the transaction that stores the run's events (crash-safe).
  await runSource(deps, { sourceId: source.id, source, entry: "run", event: delivery.event, inTransaction: delivery.complete });
}
