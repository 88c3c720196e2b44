// Stores what one step did, in one transaction, before the run goes on: the step's row, the
// run's progress (its next step, a pause, or its end), the step's emits, logs and error as
// events (which delivers them), its usage, a pause's links and wake-up job, and — when the run
// pauses or ends — the completion of the job or delivery that drove it. The update of the run
// only applies while this driver still holds it, so a driver that lost its lease stores nothing.
import type { Kysely } from "kysely";
import type { Database, RunStatus, WorkflowRunStepsTable, WorkflowRunsTable } from "../../../store/schema.js";
import type { ExecutionFailure } from "../../../runtime/code-runner.js";
import type { WorkflowStepResult } from "../../../runner/protocol/workflow-execution.js";
import { MAX_DELIVERY_HOPS } from "../../deliveries/hops.js";
import { appendEvents, retryOnEventIdClash, type NewEvent } from "../../events/append-events.js";
import { chargedEvenIfStoringFails } from "../../usage/charge-execution.js";
import { recordUsage } from "../../usage/record-usage.js";
import { workflowErrorEvent, type RunContext } from "../run-context.js";
import type { RunDeps } from "./run-deps.js";
import { DRIVER_GRACE_MS, WORKFLOW_WAKE_JOB, type WakeJob } from "./run-jobs.js";
import type { IssuedLinks } from "./run-links.js";

/** Where the run goes after a step. */
export type StepDecision =
  { kind: "next" } | { kind: "end"; status: Extract<RunStatus, "succeeded" | "failed"> } | { kind: "pause"; wakeAt: number };

/** A queued run of the account's global error workflow, for a failed step. */
export interface ErrorWorkflowJob {
  type: string;
  payload: unknown;
}

export interface StoredStep {
  run: WorkflowRunsTable;
  driver: string;
  row: WorkflowRunStepsTable;
  result: WorkflowStepResult;
  decision: StepDecision;
  /** The run's summary after this step ($.export("$summary") of any step, the last one wins). */
  summary: string | null;
  issued: IssuedLinks;
  /** 1 for the first step a start or a resume runs (an invocation), else 0. */
  invocations: number;
  finish?: (tx: Kysely<Database>) => Promise<void>;
  /** Builds the error workflow's job for a failed step's $errors event (run-workflow.ts). */
  errorWorkflowJob?: (errorEvent: unknown) => ErrorWorkflowJob | undefined;
}

export class RunTakenOver extends Error {
  constructor(runId: string) {
    super(`run ${runId} is no longer driven here (another worker took it over)`);
  }
}

export async function storeStep(deps: RunDeps, stored: StoredStep): Promise<void> {
  const { ctx } = deps;
  const { run, row, result, decision } = stored;
  const now = ctx.clock.now();
  const events: NewEvent[] = result.emits.map((payload) => ({ stream: "", event: payload }));
  for (const log of result.logs) events.push({ stream: "$logs", event: { level: log.level, message: log.message } });
  const errorEvent = result.error ? failureEvent(run, row.step_id, result.error, now) : undefined;
  if (errorEvent) events.push({ stream: "$errors", event: errorEvent });
  const ends = decision.kind === "end";
  const seq = decision.kind === "pause" ? run.wake_seq + 1 : run.wake_seq;

  await chargedEvenIfStoringFails(ctx, { userId: run.user_id, computeMs: result.durationMs }, () =>
    retryOnEventIdClash(() =>
      ctx.db.transaction().execute(async (db) => {
        const status: RunStatus = decision.kind === "end" ? decision.status : decision.kind === "pause" ? "paused" : "running";
        const updated = await db
          .updateTable("workflow_runs")
          .set({
            status,
            summary: stored.summary,
            next_step: decision.kind === "next" ? row.position + 1 : row.position,
            driver: status === "running" ? stored.driver : null,
            driver_until: status === "running" ? now + ctx.config.runTimeoutSeconds * 1000 + DRIVER_GRACE_MS : null,
            wake_seq: seq,
            ended_at: ends ? now : null,
            duration_ms: ends ? Math.max(0, now - run.created_at) : null,
          })
          .where("id", "=", run.id)
          .where("driver", "=", stored.driver)
          .where("status", "=", "running")
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) throw new RunTakenOver(run.id);
        await db.deleteFrom("workflow_run_steps").where("run_id", "=", run.id).where("position", "=", row.position).execute();
        await db.insertInto("workflow_run_steps").values(row).execute();
        if (decision.kind === "pause") await storePause(deps, db, stored, seq, decision.wakeAt);
        if (decision.kind !== "next") await stored.finish?.(db);
        await recordUsage(db, run.user_id, now, result.durationMs, stored.invocations);
        await appendEvents(ctx, db, { userId: run.user_id, emitterId: run.workflow_id, nowMs: now, events, limits: ctx.eventLimits });
        // The global error workflow's own errors are not sent back to it (that would loop), nor
        // past the hop limit of deliveries (src/domain/deliveries/hops.ts).
        const job = errorEvent && run.hops + 1 < MAX_DELIVERY_HOPS ? stored.errorWorkflowJob?.(errorEvent) : undefined;
        if (job) await deps.queue.enqueue(db, [{ ...job, userId: run.user_id }]);
      }),
    ),
  );
  if (events.length > 0) ctx.liveEvents.announce([run.workflow_id]);
  for (const event of events) ctx.metrics.eventEmitted("workflow", event.stream);
}

async function storePause(deps: RunDeps, db: Kysely<Database>, stored: StoredStep, seq: number, wakeAt: number): Promise<void> {
  const { run, issued } = stored;
  await db.deleteFrom("workflow_run_links").where("run_id", "=", run.id).execute();
  await db
    .insertInto("workflow_run_links")
    .values([
      { hash: issued.resumeHash, run_id: run.id, action: "resume", wake_seq: seq, expires_at: wakeAt },
      { hash: issued.cancelHash, run_id: run.id, action: "cancel", wake_seq: seq, expires_at: wakeAt },
    ])
    .execute();
  const wake: WakeJob = { userId: run.user_id, runId: run.id, seq, reason: "timer" };
  await deps.queue.enqueue(db, [{ type: WORKFLOW_WAKE_JOB, userId: run.user_id, payload: wake, runAt: wakeAt }]);
}

function failureEvent(run: WorkflowRunsTable, stepId: string, failure: ExecutionFailure, now: number) {
  return workflowErrorEvent({
    event: JSON.parse(run.trigger_event),
    context: JSON.parse(run.context) as RunContext,
    failure,
    cellId: stepId,
    nowMs: now,
  });
}
