// The owner resumes or cancels a paused run through the API (the dashboard's buttons), as its
// resume and cancel URLs would: a run that is not paused is a 409.
import type { Actor, Ctx } from "../../context.js";
import type { JobQueue } from "../../../queue/job-queue.js";
import { notFound, ServiceError } from "../../../lib/errors.js";
import type { WorkflowRunsTable } from "../../../store/schema.js";
import { findOwnedWorkflow } from "../manage-workflow.js";
import { cancelPausedRun } from "./pause-run.js";
import { resumePausedRun } from "./resume-run.js";

interface Input {
  ctx: Ctx;
  queue: JobQueue;
  actor: Actor;
  id: string;
  runId: string;
}

export async function resumeRun(input: Input & { data: unknown }): Promise<{ status: "resumed" }> {
  const run = await pausedRunOf(input);
  const callbackRequest = { method: "POST", query: {}, headers: { "content-type": "application/json" }, body: input.data };
  if (!(await resumePausedRun(input, run, run.wake_seq, { data: input.data, callbackRequest }))) throw notPaused(run);
  return { status: "resumed" };
}

export async function cancelRun(input: Input): Promise<{ status: "cancelled" }> {
  const run = await pausedRunOf(input);
  const cancelled = await input.ctx.db.transaction().execute((db) => cancelPausedRun(db, run, run.wake_seq, input.ctx.clock.now()));
  if (!cancelled) throw notPaused(run);
  return { status: "cancelled" };
}

async function pausedRunOf(input: Input): Promise<WorkflowRunsTable> {
  const workflow = await findOwnedWorkflow(input.ctx, input.actor, input.id);
  const run = await input.ctx.db
    .selectFrom("workflow_runs")
    .selectAll()
    .where("id", "=", input.runId)
    .where("workflow_id", "=", workflow.id)
    .executeTakeFirst();
  if (!run) throw notFound();
  if (run.status !== "paused") throw notPaused(run);
  return run;
}

const notPaused = (run: WorkflowRunsTable) => new ServiceError("CONFLICT", `run ${run.id} is not paused (it is ${run.status})`);
