// Tests a workflow's steps on a chosen event, as the builder does before saving: each step runs
// in the account's runner exactly as in a run (one runner request per step, `steps` built from
// the results before it), but nothing is stored (no run, no events, no $errors) and nothing
// leaves (emits are shown, e-mails are not sent). A step that pauses the run ($.flow.delay,
// suspend, rerun) ends the test there. The execution counts in the account's usage and is
// refused over its daily quota, like any other run.
import type { Actor, Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import type { LogRecord } from "../../runner/protocol/execution-records.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type { WorkflowStepCode, WorkflowStepResult } from "../../runner/protocol/workflow-execution.js";
import { assertWithinQuota } from "../usage/quota.js";
import { recordUsage } from "../usage/record-usage.js";
import { findOwnedWorkflow } from "./manage-workflow.js";
import { runContext } from "./run-context.js";
import { normalizeSteps, type StepInput } from "./steps.js";
import type { WorkflowRunner } from "./workflow-runner.js";
import { parseSteps } from "./workflow-view.js";
import { actionComponent } from "./step-action.js";
import { runnableStep } from "./runnable-steps.js";
import { issueRunLinks } from "./runs/run-links.js";

export interface TestWorkflowInput {
  /** `steps.trigger.event`; null when absent. */
  event?: unknown;
  /** Unsaved steps to test instead of the saved ones (same form as PUT's `steps`). */
  steps?: StepInput[];
  /** Run the steps up to and including the one of this name. */
  through_step?: string;
}

export interface StepTestResult {
  id: string;
  name: string;
  status: "succeeded" | "failed" | "paused" | "skipped";
  exports: Record<string, unknown>;
  return_value: unknown;
  logs: LogRecord[];
  error: { name: string; message: string; stack: string } | null;
}

export interface WorkflowTestResult {
  status: "succeeded" | "failed" | "paused";
  duration_ms: number;
  steps: StepTestResult[];
  /** What `$.send.emit` would have emitted, and what `$.respond` answered. */
  emits: unknown[];
  response: HttpResponseRecord | null;
  exited: boolean;
}

export async function testWorkflow({
  ctx,
  runner,
  actor,
  id,
  input,
}: {
  ctx: Ctx;
  runner: WorkflowRunner;
  actor: Actor;
  id: string;
  input: TestWorkflowInput;
}): Promise<WorkflowTestResult> {
  const workflow = await findOwnedWorkflow(ctx, actor, id);
  const saved = parseSteps(workflow);
  const all = input.steps === undefined ? saved : await boundActions(ctx, actor, normalizeSteps(input.steps, saved));
  const steps = throughStep(all, input.through_step);
  await assertWithinQuota(ctx, actor.userId);
  const context = { ...runContext(workflow, "http", ctx.clock.now()), source_type: "test", verified: true };
  const state: Record<string, unknown> = { trigger: { event: input.event === undefined ? null : input.event, context } };
  const results: StepTestResult[] = [];
  const emits: unknown[] = [];
  let response: HttpResponseRecord | undefined;
  let durationMs = 0;
  let ended: WorkflowTestResult["status"] | "exited" | undefined;
  for (const step of steps) {
    if (ended) {
      results.push(skipped(step));
      continue;
    }
    const result = await runTestStep(ctx, runner, actor.userId, workflow.id, step, state, context);
    durationMs += result.durationMs;
    emits.push(...result.emits);
    response ??= result.response;
    const paused = result.flow !== undefined && result.flow.kind !== "exit";
    const status = result.error ? "failed" : paused ? "paused" : "succeeded";
    results.push({
      id: step.id,
      name: step.name,
      status,
      exports: result.exports,
      return_value: result.returnValue ?? null,
      logs: result.logs,
      error: result.error ? { name: result.error.name, message: result.error.message, stack: result.error.stack } : null,
    });
    if (status === "succeeded") state[step.name] = { ...result.exports, $return_value: result.returnValue };
    if (status !== "succeeded") ended = status;
    else if (result.flow?.kind === "exit") ended = "exited";
  }
  await recordUsage(ctx.db, actor.userId, ctx.clock.now(), durationMs);
  return {
    status: ended === "failed" || ended === "paused" ? ended : "succeeded",
    duration_ms: Math.round(durationMs),
    steps: results,
    emits,
    response: response ?? null,
    exited: ended === "exited",
  };
}

/** Unsaved action steps are bound to their component as a save would, without storing anything. */
async function boundActions(ctx: Ctx, actor: Actor, steps: WorkflowStepCode[]): Promise<WorkflowStepCode[]> {
  const bound: WorkflowStepCode[] = [];
  for (const step of steps) {
    if (step.type !== "action") bound.push(step);
    else bound.push({ ...step, componentRef: (await actionComponent(ctx, actor, step, `step "${step.name}"`)).id });
  }
  return bound;
}

async function runTestStep(
  ctx: Ctx,
  runner: WorkflowRunner,
  userId: string,
  workflowId: string,
  step: WorkflowStepCode,
  steps: Record<string, unknown>,
  context: Record<string, unknown>,
): Promise<WorkflowStepResult> {
  const resolved = await runnableStep(ctx, userId, step);
  if ("failure" in resolved) return { emits: [], logs: [], emails: [], exports: {}, error: resolved.failure, durationMs: 0 };
  return runner.executeWorkflowStep({
    userId,
    workflowId,
    step: resolved.step,
    steps: { ...steps },
    context: { ...context, run: { runs: 1, context: null } },
    // Links a test step may show; nothing is paused, so they lead nowhere (404).
    links: issueRunLinks(ctx.config.publicUrl).links,
    timeoutMs: ctx.config.runTimeoutSeconds * 1000,
  });
}

function throughStep(steps: WorkflowStepCode[], name: string | undefined): WorkflowStepCode[] {
  if (name === undefined) return steps;
  const index = steps.findIndex((step) => step.name === name);
  if (index < 0) throw invalid(`through_step: no step is named "${name}"`);
  return steps.slice(0, index + 1);
}

const skipped = (step: WorkflowStepCode): StepTestResult => ({
  id: step.id,
  name: step.name,
  status: "skipped",
  exports: {},
  return_value: null,
  logs: [],
  error: null,
});
