// Drives a run step by step: each step is one runner request that gets the step and `steps`
// as the stored results left it; its result is stored (store-step.ts) before the next step is
// asked for. A driver that dies between steps leaves the run where the last stored step left
// it, and whoever drives it next (the same job or delivery, handed out again) goes on from
// there: completed steps never run again.
import type { Kysely } from "kysely";
import type { Database, WorkflowRunStepsTable, WorkflowRunsTable } from "../../../store/schema.js";
import type { ExecutionFailure, HttpResponseRecord } from "../../../runtime/code-runner.js";
import type { WorkflowStepResult } from "../../../runner/protocol/workflow-execution.js";
import { withDeliveryHops } from "../../deliveries/hops.js";
import type { RunDeps } from "./run-deps.js";
import { issueRunLinks } from "./run-links.js";
import { runnableStep } from "../runnable-steps.js";
import { loadStepRows, runSteps, stepsState, toJson } from "./run-state.js";
import { sendEmails } from "./send-emails.js";
import { RunTakenOver, storeStep, type ErrorWorkflowJob, type StepDecision } from "./store-step.js";

export interface DriveOptions {
  /** The origin key of the job or delivery driving the run (workflow_runs.driver). */
  driver: string;
  onResponse?: (response: HttpResponseRecord) => void;
  /** Completes that job or delivery, in the transaction that pauses or ends the run. */
  finish?: (tx: Kysely<Database>) => Promise<void>;
  errorWorkflowJob?: (errorEvent: unknown) => ErrorWorkflowJob | undefined;
}

export interface DriveOutcome {
  response?: HttpResponseRecord;
  /** The failure of the step that failed, if one did. */
  error?: ExecutionFailure;
}

export function driveRun(deps: RunDeps, run: WorkflowRunsTable, options: DriveOptions): Promise<DriveOutcome> {
  // Events the steps emit are delivered as many hops on as the run's trigger was.
  return withDeliveryHops(run.hops, () => drive(deps, run, options));
}

async function drive(deps: RunDeps, run: WorkflowRunsTable, options: DriveOptions): Promise<DriveOutcome> {
  const { ctx } = deps;
  const steps = runSteps(run);
  const rows = await loadStepRows(ctx.db, run.id);
  const outcome: DriveOutcome = {};
  let summary = run.summary;
  let invocations = 1;
  for (let position = run.next_step; ; position++) {
    const step = steps[position];
    if (!step) {
      await endWithoutStep(deps, run, options);
      return outcome;
    }
    const prior = rows.get(position);
    const runs = (prior?.runs ?? 0) + 1;
    const issued = issueRunLinks(ctx.config.publicUrl);
    const startedAt = ctx.clock.now();
    const context = JSON.parse(run.context) as Record<string, unknown>;
    const resolved = await runnableStep(ctx, run.user_id, step);
    const result: WorkflowStepResult =
      "failure" in resolved
        ? { emits: [], logs: [], emails: [], exports: {}, error: resolved.failure, durationMs: 0 }
        : await deps.runner.executeWorkflowStep(
            {
              userId: run.user_id,
              workflowId: run.workflow_id,
              step: resolved.step,
              steps: stepsState(run, rows, position),
              context: {
                ...context,
                run: {
                  runs,
                  context: prior ? JSON.parse(prior.rerun_context ?? "null") : null,
                  callback_request: fromText(prior?.callback_request),
                },
              },
              links: issued.links,
              timeoutMs: ctx.config.runTimeoutSeconds * 1000,
            },
            { onResponse: options.onResponse },
          );
    outcome.response ??= result.response;
    if (result.error) outcome.error = result.error;
    // A pause counts from the step's end.
    const decision = decide(result, runs, position === steps.length - 1, ctx.clock.now());
    if (result.exports.$summary !== undefined) summary = summaryText(result.exports.$summary);
    const row = stepRow(run.id, position, step, result, runs, startedAt, decision);
    await storeStep(deps, {
      run,
      driver: options.driver,
      row,
      result,
      decision,
      summary,
      issued,
      invocations,
      finish: options.finish,
      errorWorkflowJob: options.errorWorkflowJob,
    });
    await sendEmails(deps, run.user_id, run.workflow_id, result.emails);
    if (!result.error) await deps.httpSender(result.httpRequests ?? [], { workflowId: run.workflow_id, runId: run.id });
    invocations = 0;
    rows.set(position, row);
    run = { ...run, summary, next_step: position + 1 };
    if (decision.kind !== "next") return outcome;
  }
}

function decide(result: WorkflowStepResult, runs: number, last: boolean, now: number): StepDecision {
  if (result.error) return { kind: "end", status: "failed" };
  const flow = result.flow;
  if (flow?.kind === "exit") return { kind: "end", status: "succeeded" };
  if (flow?.kind === "delay") return { kind: "pause", wakeAt: now + flow.ms };
  if (flow?.kind === "suspend") return { kind: "pause", wakeAt: now + flow.timeoutMs };
  // Past maxReruns a rerun is not made: the run goes on to the next step.
  if (flow?.kind === "rerun" && runs - 1 < flow.maxReruns) return { kind: "pause", wakeAt: now + flow.delayMs };
  return last ? { kind: "end", status: "succeeded" } : { kind: "next" };
}

function stepRow(
  runId: string,
  position: number,
  step: { id: string; name: string },
  result: WorkflowStepResult,
  runs: number,
  startedAt: number,
  decision: StepDecision,
): WorkflowRunStepsTable {
  const paused = decision.kind === "pause";
  return {
    run_id: runId,
    position,
    step_id: step.id,
    name: step.name,
    status: result.error ? "failed" : paused ? "paused" : "succeeded",
    started_at: startedAt,
    duration_ms: Math.round(result.durationMs),
    exports: toJson(result.exports),
    return_value: toJson(result.returnValue),
    resume_data: null,
    logs: toJson(result.logs.map((log) => ({ level: log.level, message: log.message }))),
    error: result.error ? toJson({ name: result.error.name, message: result.error.message, stack: result.error.stack }) : null,
    runs,
    rerun_context: paused && result.flow?.kind === "rerun" ? toJson(result.flow.context) : null,
    callback_request: null,
    flow: paused ? toJson(result.flow) : null,
  };
}

function summaryText(value: unknown): string {
  return (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value))).slice(0, 1024);
}

function fromText(text: string | null | undefined): unknown {
  return text === null || text === undefined ? undefined : JSON.parse(text);
}

/** A run woken after the pause of its last step: it ends, having nothing left to run. */
async function endWithoutStep(deps: RunDeps, run: WorkflowRunsTable, options: DriveOptions): Promise<void> {
  const now = deps.ctx.clock.now();
  await deps.ctx.db.transaction().execute(async (db) => {
    const updated = await db
      .updateTable("workflow_runs")
      .set({ status: "succeeded", driver: null, ended_at: now, duration_ms: Math.max(0, now - run.created_at) })
      .where("id", "=", run.id)
      .where("driver", "=", options.driver)
      .where("status", "=", "running")
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new RunTakenOver(run.id);
    await options.finish?.(db);
  });
}
