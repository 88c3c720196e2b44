// Runs that start outside an HTTP request: queued runs (accepted HTTP requests, errors for the
// global error workflow, replays), deliveries from subscriptions (handleWorkflowDelivery, the
// "p" listener handler main.ts builds), and wake-ups of paused runs. Each run is keyed by the
// job or delivery that started it, so one handed out again continues its run.
import type { Kysely } from "kysely";
import type { Ctx } from "../context.js";
import { withDeliveryHops } from "../deliveries/hops.js";
import type { Database, WorkflowsTable } from "../../store/schema.js";
import { ensureErrorWorkflow } from "./error-workflow.js";
import { errorWorkflowJobOf, runWorkflow, WORKFLOW_RUN_JOB, type WorkflowDeps, type WorkflowRunJob } from "./run-workflow.js";
import { deliveryOrigin, jobOrigin, WORKFLOW_WAKE_JOB } from "./runs/run-jobs.js";
import { wakeRun } from "./runs/wake-run.js";
import { abandonRunOf } from "./runs/abandon-run.js";

/** Called once by the composition root, before the queue starts. */
export function registerWorkflowJobs(deps: WorkflowDeps): void {
  deps.queue.handle(WORKFLOW_RUN_JOB, async (job) =>
    handleWorkflowRunJob(deps, job.payload as WorkflowRunJob, { origin: jobOrigin(job.id), complete: job.complete }),
  );
  deps.queue.handle(WORKFLOW_WAKE_JOB, async (job) => wakeRun(deps, job, errorWorkflowJobOf));
}

function findWorkflow(ctx: Ctx, userId: string, id: string): Promise<WorkflowsTable | undefined> {
  return ctx.db.selectFrom("workflows").selectAll().where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
}

/** A deleted or inactive workflow drops the run: there is nothing to run any more. */
export async function handleWorkflowRunJob(
  deps: WorkflowDeps,
  job: WorkflowRunJob,
  from: { origin?: string; complete?: CompleteInTransaction } = {},
): Promise<void> {
  const workflow = job.toErrorWorkflow
    ? await ensureErrorWorkflow(deps.ctx, job.userId)
    : job.workflowId
      ? await findWorkflow(deps.ctx, job.userId, job.workflowId)
      : undefined;
  if (!workflow || workflow.active !== 1) return abandonRunOf(deps.ctx, from.origin);
  // The job completes in the transaction that pauses or ends the run (crash-safe).
  await withDeliveryHops(job.hops, () =>
    runWorkflow(deps, { workflow, event: job.event, trigger: job.trigger, origin: from.origin, inTransaction: from.complete }),
  );
}

/** Finishes a queue job or delivery inside the transaction that stores a run's results. */
type CompleteInTransaction = (tx: Kysely<Database>) => Promise<void>;

export interface WorkflowDelivery {
  deliveryId?: string;
  userId: string;
  listenerId: string;
  event: unknown;
  complete?: CompleteInTransaction;
}

/** A subscription delivered an event to a workflow: run it with that event (the dispatcher sets the hop count). */
export async function handleWorkflowDelivery(deps: WorkflowDeps, delivery: WorkflowDelivery): Promise<void> {
  const workflow = await findWorkflow(deps.ctx, delivery.userId, delivery.listenerId);
  if (!workflow || workflow.active !== 1)
    return abandonRunOf(deps.ctx, delivery.deliveryId ? deliveryOrigin(delivery.deliveryId) : undefined);
  await runWorkflow(deps, {
    workflow,
    event: delivery.event,
    trigger: "subscription",
    origin: delivery.deliveryId ? deliveryOrigin(delivery.deliveryId) : undefined,
    inTransaction: delivery.complete,
  });
}
