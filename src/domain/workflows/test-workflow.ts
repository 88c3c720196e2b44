// Tests a workflow's steps on a chosen event, as the builder does before saving: the steps run
// in the account's runner exactly as in a run, but nothing is stored (no run, no events, no
// $errors) and nothing leaves (emits are shown, e-mails are not sent). The execution counts in
// the account's usage and is refused over its daily quota, like any other run.
import type { Actor, Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import type { LogRecord } from "../../runner/protocol/execution-records.js";
import type { WorkflowExecuteResult, WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";
import { assertWithinQuota } from "../usage/quota.js";
import { recordUsage } from "../usage/record-usage.js";
import { findOwnedWorkflow } from "./manage-workflow.js";
import { runContext } from "./run-context.js";
import { normalizeSteps, type StepInput } from "./steps.js";
import type { WorkflowRunner } from "./workflow-runner.js";
import { parseSteps } from "./workflow-view.js";

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
  status: "succeeded" | "failed" | "skipped";
  exports: Record<string, unknown>;
  return_value: unknown;
  logs: LogRecord[];
  error: { name: string; message: string; stack: string } | null;
}

export interface WorkflowTestResult {
  status: "succeeded" | "failed";
  duration_ms: number;
  steps: StepTestResult[];
  /** What `$.send.emit` would have emitted, and what `$.respond` answered. */
  emits: unknown[];
  response: WorkflowExecuteResult["response"] | null;
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
  const all = input.steps === undefined ? saved : normalizeSteps(input.steps, saved);
  const steps = throughStep(all, input.through_step);
  await assertWithinQuota(ctx, actor.userId);
  const context = { ...runContext(workflow, "http", ctx.clock.now()), source_type: "test", verified: true };
  const result = await runner.executeWorkflow({
    userId: actor.userId,
    workflowId: workflow.id,
    steps,
    event: input.event === undefined ? null : input.event,
    context,
    timeoutMs: ctx.config.runTimeoutSeconds * 1000,
  });
  await recordUsage(ctx.db, actor.userId, ctx.clock.now(), result.durationMs);
  return {
    status: result.error ? "failed" : "succeeded",
    duration_ms: Math.round(result.durationMs),
    steps: stepResults(steps, result),
    emits: result.emits,
    response: result.response ?? null,
    exited: result.exited,
  };
}

function throughStep(steps: WorkflowStepCode[], name: string | undefined): WorkflowStepCode[] {
  if (name === undefined) return steps;
  const index = steps.findIndex((step) => step.name === name);
  if (index < 0) throw invalid(`through_step: no step is named "${name}"`);
  return steps.slice(0, index + 1);
}

/** Every step given, in order: its outcome, or skipped when the run ended before it. */
export function stepResults(steps: WorkflowStepCode[], result: WorkflowExecuteResult): StepTestResult[] {
  const done = new Map(result.stepResults.map((step) => [step.id, step]));
  const starts = result.logStarts ?? [];
  // Without per-step boundaries (a killed runner loses them), all output goes to the first step.
  const logsOf = (index: number): LogRecord[] => {
    if (starts.length === 0) return index === 0 ? result.logs : [];
    if (index >= starts.length) return [];
    return result.logs.slice(starts[index], starts[index + 1] ?? result.logs.length);
  };
  let ended = false;
  return steps.map((step, index) => {
    const ran = done.get(step.id);
    const failed = !ended && !ran && result.failedStepId === step.id;
    const status = ran ? "succeeded" : failed ? "failed" : "skipped";
    if (failed) ended = true;
    const error = failed && result.error ? { name: result.error.name, message: result.error.message, stack: result.error.stack } : null;
    return {
      id: step.id,
      name: step.name,
      status,
      exports: ran?.exports ?? {},
      return_value: ran?.returnValue ?? null,
      logs: logsOf(index),
      error,
    };
  });
}
