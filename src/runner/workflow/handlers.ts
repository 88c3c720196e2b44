// Runner-side handlers for workflows, added to the runner's handler table (../handlers.ts):
// "workflow.check" checks step modules at save time, "workflow.run" runs a workflow's steps.
// Step modules were written by the service into the account's module folder, like components.
import { pathToFileURL } from "node:url";
import { captureLogs } from "../console-capture.js";
import type { HandlerTools } from "../protocol/messages.js";
import type { LogRecord } from "../protocol/component-execution.js";
import type { PreparedStep, StepProblem } from "../protocol/workflow-execution.js";
import { checkSteps, runSteps, type StepHost, type StepsOutcome } from "./run-steps.js";

function host(tools?: HandlerTools, onStepStarted?: () => void): StepHost<PreparedStep> {
  return {
    load: (step) => import(pathToFileURL(step.entryPath).href),
    respond: (response) => tools?.emitEvent({ response }),
    stepStarted: (stepId) => {
      onStepStarted?.();
      tools?.emitEvent({ stepStarted: stepId });
    },
  };
}

export async function workflowCheck(payload: { steps: PreparedStep[] }): Promise<StepProblem[]> {
  return checkSteps(payload.steps, host());
}

export async function workflowRun(
  payload: { steps: PreparedStep[]; event: unknown; context: Record<string, unknown> },
  tools: HandlerTools,
): Promise<StepsOutcome & { logs: LogRecord[]; logStarts: number[] }> {
  const logs: LogRecord[] = [];
  // Where each started step's console output begins in `logs`, so results can show it per step.
  const logStarts: number[] = [];
  captureLogs(logs);
  try {
    const outcome = await runSteps(
      payload,
      host(tools, () => logStarts.push(logs.length)),
    );
    return { ...outcome, logs, logStarts };
  } finally {
    captureLogs(undefined);
  }
}

export const workflowHandlers = { "workflow.check": workflowCheck, "workflow.run": workflowRun };
