// The wake-up of a paused run (a `workflow.wake` job): its delay or rerun delay ended, its
// resume URL was requested, or its suspend timed out (which cancels it, as Pipedream does);
// or the watch of a run driven inside an HTTP request (adopt-run.ts).
// The job takes the run (pause-run.ts) and drives it; a job handed out again after its worker
// died finds the run still driven by it and goes on from the last stored step.
import type { Job } from "../../../queue/job-queue.js";
import type { WorkflowsTable } from "../../../store/schema.js";
import type { RunDeps } from "./run-deps.js";
import { adoptRun } from "./adopt-run.js";
import { driveRun } from "./drive-run.js";
import type { ErrorWorkflowJob } from "./store-step.js";
import { jobOrigin, type WakeJob } from "./run-jobs.js";
import { cancelPausedRun, pausedFlow, takePausedRun } from "./pause-run.js";

/** The error workflow's job for a failed step of `workflow` (run-workflow.ts). */
export type ErrorWorkflowJobOf = (workflow: WorkflowsTable, errorEvent: unknown) => ErrorWorkflowJob | undefined;

export async function wakeRun(deps: RunDeps, job: Job, errorWorkflowJob: ErrorWorkflowJobOf): Promise<void> {
  const { ctx } = deps;
  const wake = job.payload as WakeJob;
  const driver = jobOrigin(job.id);
  const run = await ctx.db
    .selectFrom("workflow_runs")
    .selectAll()
    .where("id", "=", wake.runId)
    .where("user_id", "=", wake.userId)
    .executeTakeFirst();
  if (!run) return;
  const workflow = await ctx.db.selectFrom("workflows").selectAll().where("id", "=", run.workflow_id).executeTakeFirst();
  const drive = {
    driver,
    finish: job.complete,
    errorWorkflowJob: (errorEvent: unknown) => (workflow ? errorWorkflowJob(workflow, errorEvent) : undefined),
  };
  if (run.status === "running" && run.driver === driver) {
    await driveRun(deps, run, drive);
    return;
  }
  if (wake.reason === "watch") {
    const adopted = await adoptRun(deps, job, run, driver);
    if (adopted) await driveRun(deps, adopted, drive);
    return;
  }
  if (run.status !== "paused" || run.wake_seq !== wake.seq) return;
  const flow = await pausedFlow(ctx.db, run);
  const now = ctx.clock.now();
  if (!workflow || (flow?.kind === "suspend" && wake.reason === "timer")) {
    await ctx.db.transaction().execute(async (db) => {
      await cancelPausedRun(db, run, wake.seq, now);
      await job.complete?.(db);
    });
    return;
  }
  const taken = await ctx.db.transaction().execute((db) => takePausedRun(db, run, wake.seq, driver, flow));
  if (!taken) return;
  const current = await ctx.db.selectFrom("workflow_runs").selectAll().where("id", "=", run.id).executeTakeFirstOrThrow();
  await driveRun(deps, current, drive);
}
