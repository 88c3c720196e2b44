// The watch job of a run driven inside an HTTP request (a workflow that calls $.respond): no
// queue job holds such a run, so should the process driving it die, nothing would take it up.
// Its driver renews `driver_until` at every step (the step's time limit and a grace period);
// the watch job comes back at that time, and a run still driven inside a request past it is
// taken over by the worker, which goes on at its next step. A run that ended or paused needs
// no watching any more.
import type { Job } from "../../../queue/job-queue.js";
import type { WorkflowRunsTable } from "../../../store/schema.js";
import type { RunDeps } from "./run-deps.js";
import { WORKFLOW_WAKE_JOB } from "./run-jobs.js";

/** The run, now driven by `driver`; undefined when it needs nothing from this watch (yet). */
export async function adoptRun(deps: RunDeps, job: Job, run: WorkflowRunsTable, driver: string): Promise<WorkflowRunsTable | undefined> {
  const { ctx } = deps;
  if (run.status !== "running" || !run.driver?.startsWith("inline:")) return undefined;
  const until = Number(run.driver_until ?? 0);
  if (until > ctx.clock.now()) {
    // Alive: look again when its time is up (a new job, so watching uses no attempts).
    await ctx.db.transaction().execute(async (db) => {
      await deps.queue.enqueue(db, [{ type: WORKFLOW_WAKE_JOB, userId: run.user_id, payload: job.payload, runAt: until }]);
      await job.complete?.(db);
    });
    return undefined;
  }
  const taken = await ctx.db
    .updateTable("workflow_runs")
    .set({ driver, driver_until: null })
    .where("id", "=", run.id)
    .where("status", "=", "running")
    .where("driver", "=", run.driver)
    .where("driver_until", "<=", ctx.clock.now())
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) return undefined;
  ctx.logger.warn({ runId: run.id }, "a run driven inside an HTTP request stopped; a worker goes on with it");
  return { ...run, driver, driver_until: null };
}
