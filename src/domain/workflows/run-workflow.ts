// One run of a workflow, started by an HTTP request, a queued job or a delivery: its row is
// written first (runs/start-run.ts), then it is driven step by step, each step's results
// stored before the next runs (runs/drive-run.ts): emits (default stream), console output
// ($logs) and a failure ($errors, also queued for the account's global error workflow). A
// run started by a job or delivery is keyed by it, so when that is handed out again after its
// worker died, the run goes on from its last stored step.
import type { Kysely } from "kysely";
import type { Ctx } from "../context.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type { Database, WorkflowsTable } from "../../store/schema.js";
import { currentDeliveryHops } from "../deliveries/hops.js";
import { appendEvents, retryOnEventIdClash } from "../events/append-events.js";
import { runContext, workflowErrorEvent, type TriggerKind } from "./run-context.js";
import { parseSteps } from "./workflow-view.js";
import { quotaExceeded } from "../usage/quota.js";
import { driveRun, type DriveOutcome } from "./runs/drive-run.js";
import type { RunDeps } from "./runs/run-deps.js";
import { startOrFindRun } from "./runs/start-run.js";
import type { ErrorWorkflowJob } from "./runs/store-step.js";

export type WorkflowDeps = RunDeps;

export const WORKFLOW_RUN_JOB = "workflow.run";

/** A queued run: of one workflow, or (toErrorWorkflow) of the account's global error workflow. */
export interface WorkflowRunJob {
  userId: string;
  workflowId?: string;
  toErrorWorkflow?: boolean;
  event: unknown;
  trigger: TriggerKind;
  hops: number;
}

export async function runWorkflow(
  deps: WorkflowDeps,
  input: {
    workflow: WorkflowsTable;
    event: unknown;
    trigger: TriggerKind;
    /** `j:<job id>` or `d:<delivery id>` (runs/run-jobs.ts); absent for a run inside an HTTP request. */
    origin?: string;
    onResponse?: (response: HttpResponseRecord) => void;
    /** Completes the job or delivery that started the run, in the transaction that pauses or ends it. */
    inTransaction?: (tx: Kysely<Database>) => Promise<void>;
  },
): Promise<DriveOutcome> {
  const { ctx } = deps;
  const { workflow } = input;
  if (!input.origin || !(await runExists(ctx, input.origin))) {
    // Over the free plan's daily quota, runs not started by a request (which got a 429) are
    // skipped and reported on $errors, like scheduled source runs.
    const overQuota = input.trigger === "http" ? undefined : await quotaExceeded(ctx, workflow.user_id);
    if (overQuota) return skipOverQuota(ctx, workflow, input, overQuota);
  }
  const run = await startOrFindRun(deps, { ...input, hops: currentDeliveryHops() });
  const driver = run.driver ?? "";
  if (run.status !== "running" || (input.origin && driver !== input.origin)) {
    // Handed out again after the run it started paused or ended: only the completion is left.
    if (input.inTransaction) await ctx.db.transaction().execute((db) => input.inTransaction!(db));
    return {};
  }
  return driveRun(deps, run, {
    driver,
    onResponse: input.onResponse,
    finish: input.inTransaction,
    errorWorkflowJob: (errorEvent) => errorWorkflowJobOf(workflow, errorEvent),
  });
}

async function runExists(ctx: Ctx, origin: string): Promise<boolean> {
  return (await ctx.db.selectFrom("workflow_runs").select("id").where("origin", "=", origin).executeTakeFirst()) !== undefined;
}

/** The error workflow's run for a failed step's $errors event; none for the error workflow's own errors. */
export function errorWorkflowJobOf(workflow: WorkflowsTable, errorEvent: unknown): ErrorWorkflowJob | undefined {
  if (workflow.is_error_workflow === 1) return undefined;
  const job: WorkflowRunJob = {
    userId: workflow.user_id,
    toErrorWorkflow: true,
    event: errorEvent,
    trigger: "error",
    hops: currentDeliveryHops() + 1,
  };
  return { type: WORKFLOW_RUN_JOB, payload: job };
}

async function skipOverQuota(
  ctx: Ctx,
  workflow: WorkflowsTable,
  input: { event: unknown; trigger: TriggerKind; inTransaction?: (tx: Kysely<Database>) => Promise<void> },
  message: string,
): Promise<DriveOutcome> {
  const context = runContext(workflow, input.trigger, ctx.clock.now());
  const cellId = parseSteps(workflow)[0]?.id ?? "";
  const failure = { kind: "error" as const, name: "QUOTA_EXCEEDED", message, stack: `QuotaExceeded: ${message}; the run was skipped` };
  const errorEvent = workflowErrorEvent({ event: input.event, context, failure, cellId, nowMs: ctx.clock.now() });
  await retryOnEventIdClash(() =>
    ctx.db.transaction().execute(async (db) => {
      await input.inTransaction?.(db);
      await appendEvents(ctx, db, {
        userId: workflow.user_id,
        emitterId: workflow.id,
        nowMs: ctx.clock.now(),
        events: [{ stream: "$errors", event: errorEvent }],
        limits: ctx.eventLimits,
      });
    }),
  );
  ctx.liveEvents.announce([workflow.id]);
  return { error: failure };
}
