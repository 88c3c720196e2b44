// One run of a workflow: its steps execute in the runner; then, in one transaction, its emits
// (default stream), console output ($logs) and error ($errors) are stored — which delivers them
// to subscribers — and an error is queued for the account's global error workflow. E-mails the
// steps asked for are sent by the service afterwards, to the account owner only.
import type { Kysely } from "kysely";
import type { Ctx } from "../context.js";
import type { JobQueue } from "../../queue/job-queue.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type { WorkflowExecuteResult } from "../../runner/protocol/workflow-execution.js";
import type { Database, WorkflowsTable } from "../../store/schema.js";
import type { Mailer } from "../../mail/mailer.js";
import { currentDeliveryHops, MAX_DELIVERY_HOPS } from "../deliveries/hops.js";
import { appendEvents, retryOnEventIdClash, type NewEvent } from "../events/append-events.js";
import { runContext, workflowErrorEvent, type RunContext, type TriggerKind } from "./run-context.js";
import { parseSteps } from "./workflow-view.js";
import { executeStoredSteps } from "./runnable-steps.js";
import type { WorkflowRunner } from "./workflow-runner.js";
import { quotaExceeded } from "../usage/quota.js";
import { chargedEvenIfStoringFails } from "../usage/charge-execution.js";
import { recordUsage } from "../usage/record-usage.js";

export interface WorkflowDeps {
  ctx: Ctx;
  runner: WorkflowRunner;
  queue: JobQueue;
  mailer: Mailer;
}

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

const MAX_EMAILS_PER_RUN = 5;

export async function runWorkflow(
  deps: WorkflowDeps,
  input: {
    workflow: WorkflowsTable;
    event: unknown;
    trigger: TriggerKind;
    onResponse?: (response: HttpResponseRecord) => void;
    /** Runs inside the transaction that stores the run's results (a queue job or delivery completing itself). */
    inTransaction?: (tx: Kysely<Database>) => Promise<void>;
  },
): Promise<WorkflowExecuteResult> {
  const { ctx } = deps;
  const { workflow } = input;
  const steps = parseSteps(workflow);
  const context = runContext(workflow, input.trigger, ctx.clock.now());
  // Over the free plan's daily quota, runs not started by a request (which got a 429) are
  // skipped and reported on $errors, like scheduled source runs.
  const overQuota = input.trigger === "http" ? undefined : await quotaExceeded(ctx, workflow.user_id);
  if (overQuota) return skipOverQuota(ctx, workflow, input, context, overQuota, steps[0]?.id ?? "");
  const result = await executeStoredSteps(
    ctx,
    deps.runner,
    {
      userId: workflow.user_id,
      workflowId: workflow.id,
      steps,
      event: input.event,
      context: { ...context },
      timeoutMs: ctx.config.runTimeoutSeconds * 1000,
    },
    { onResponse: input.onResponse },
  );
  const events: NewEvent[] = result.emits.map((payload) => ({ stream: "", event: payload }));
  for (const log of result.logs) events.push({ stream: "$logs", event: { level: log.level, message: log.message } });
  const failure = result.error;
  const errorEvent = failure
    ? workflowErrorEvent({
        event: input.event,
        context,
        failure,
        cellId: result.failedStepId ?? steps[0]?.id ?? "",
        nowMs: ctx.clock.now(),
      })
    : undefined;
  if (errorEvent) events.push({ stream: "$errors", event: errorEvent });

  // The global error workflow's own errors are stored and delivered to explicit subscribers,
  // but never sent back to it: that would loop. Runs started by deliveries carry a hop count
  // (src/domain/deliveries/hops.ts); the error workflow's run is one hop further, within the same limit.
  const hops = currentDeliveryHops();
  const toErrorWorkflow = errorEvent && workflow.is_error_workflow !== 1 && hops + 1 < MAX_DELIVERY_HOPS;
  // One transaction: the results, the usage (one invocation and its compute time, like a
  // source execution) and the completion of the job or delivery that started the run, so a
  // crash can neither lose the results nor run the workflow again after they were stored.
  // Should storing fail, the run is still counted (charge-execution.ts).
  await chargedEvenIfStoringFails(ctx, { userId: workflow.user_id, computeMs: result.durationMs }, () =>
    retryOnEventIdClash(() =>
      ctx.db.transaction().execute(async (db) => {
        await input.inTransaction?.(db);
        await recordUsage(db, workflow.user_id, ctx.clock.now(), result.durationMs);
        await appendEvents(ctx, db, {
          userId: workflow.user_id,
          emitterId: workflow.id,
          nowMs: ctx.clock.now(),
          events,
          limits: ctx.eventLimits,
        });
        if (toErrorWorkflow) {
          const job: WorkflowRunJob = {
            userId: workflow.user_id,
            toErrorWorkflow: true,
            event: errorEvent,
            trigger: "error",
            hops: hops + 1,
          };
          await deps.queue.enqueue(db, [{ type: WORKFLOW_RUN_JOB, userId: workflow.user_id, payload: job }]);
        }
      }),
    ),
  );
  if (events.length > 0) ctx.liveEvents.announce([workflow.id]);
  for (const event of events) ctx.metrics.eventEmitted("workflow", event.stream);
  await sendEmails(deps, workflow, result.emails.slice(0, MAX_EMAILS_PER_RUN));
  return result;
}

async function skipOverQuota(
  ctx: Ctx,
  workflow: WorkflowsTable,
  input: { event: unknown; inTransaction?: (tx: Kysely<Database>) => Promise<void> },
  context: RunContext,
  message: string,
  cellId: string,
): Promise<WorkflowExecuteResult> {
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
  return { emits: [], logs: [], emails: [], stepResults: [], exited: false, error: failure, durationMs: 0 };
}

async function sendEmails(deps: WorkflowDeps, workflow: WorkflowsTable, emails: WorkflowExecuteResult["emails"]): Promise<void> {
  if (emails.length === 0) return;
  const owner = await deps.ctx.db.selectFrom("users").select("email").where("id", "=", workflow.user_id).executeTakeFirst();
  if (!owner) return;
  for (const email of emails) {
    try {
      await deps.mailer.send({ to: owner.email, subject: email.subject, text: email.text });
    } catch (error) {
      deps.ctx.logger.error({ err: error, workflowId: workflow.id }, "sending a workflow e-mail failed");
    }
  }
}
