// Runner-side handlers for workflows, added to the runner's handler table (../handlers.ts):
// "workflow.check" checks step modules and lists their props at save time, "workflow.step" runs one step of a run.
// Step modules were written by the service into the account's module folder, like components.
import { pathToFileURL } from "node:url";
import { captureLogs } from "../console-capture.js";
import type { HandlerTools } from "../protocol/messages.js";
import type { LogRecord } from "../protocol/component-execution.js";
import type { PreparedStep, RunLinks, StepsCheck } from "../protocol/workflow-execution.js";
import { inspectSteps } from "./inspect-steps.js";
import type { StepHost } from "./run-steps.js";
import { runStep, type StepOutcome } from "./run-step.js";

function host(tools?: HandlerTools): StepHost<PreparedStep> {
  return {
    load: (step) => import(pathToFileURL(step.entryPath).href),
    respond: (response) => tools?.emitEvent({ response }),
    ...(tools ? { callService: (method: string, args: unknown) => tools.callService(method, args) } : {}),
  };
}

export async function workflowCheck(payload: { steps: PreparedStep[] }): Promise<StepsCheck> {
  return inspectSteps(payload.steps, host());
}

export async function workflowStep(
  payload: { step: PreparedStep; steps: Record<string, unknown>; context: Record<string, unknown>; links: RunLinks },
  tools: HandlerTools,
): Promise<StepOutcome & { logs: LogRecord[] }> {
  const logs: LogRecord[] = [];
  captureLogs(logs);
  try {
    const outcome = await runStep(payload, host(tools));
    return { ...outcome, logs };
  } finally {
    captureLogs(undefined);
  }
}

export const workflowHandlers = { "workflow.check": workflowCheck, "workflow.step": workflowStep };
