// Runner-side handlers for workflows, added to the runner's handler table (../handlers.ts):
// "workflow.check" checks step modules and lists their props at save time, "workflow.run" runs a workflow's steps.
// Step modules were written by the service into the account's module folder, like components.
import { pathToFileURL } from "node:url";
import { captureLogs } from "../console-capture.js";
import type { HandlerTools } from "../protocol/messages.js";
import type { LogRecord } from "../protocol/component-execution.js";
import type { PreparedStep, StepsCheck } from "../protocol/workflow-execution.js";
import { inspectSteps } from "./inspect-steps.js";
import { runSteps, type StepHost, type StepsOutcome } from "./run-steps.js";

function host(tools?: HandlerTools): StepHost<PreparedStep> {
  return {
    load: (step) => import(pathToFileURL(step.entryPath).href),
    respond: (response) => tools?.emitEvent({ response }),
    stepStarted: (stepId) => tools?.emitEvent({ stepStarted: stepId }),
  };
}

export async function workflowCheck(payload: { steps: PreparedStep[] }): Promise<StepsCheck> {
  return inspectSteps(payload.steps, host());
}

export async function workflowRun(
  payload: { steps: PreparedStep[]; event: unknown; context: Record<string, unknown> },
  tools: HandlerTools,
): Promise<StepsOutcome & { logs: LogRecord[] }> {
  const logs: LogRecord[] = [];
  captureLogs(logs);
  try {
    const outcome = await runSteps(payload, host(tools));
    return { ...outcome, logs };
  } finally {
    captureLogs(undefined);
  }
}

export const workflowHandlers = { "workflow.check": workflowCheck, "workflow.run": workflowRun };
