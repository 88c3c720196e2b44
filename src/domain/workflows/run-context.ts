// The context of one run (original_context of its errors) and the shape of its $errors event.
import { randomString } from "../../lib/ids.js";
import type { ExecutionFailure } from "../../runtime/code-runner.js";
import type { WorkflowsTable } from "../../store/schema.js";
import { platformVersion } from "./platform-version.js";

/**
 * How a run was started: source_type in its context. Public HTTP requests are not verified.
 * "delivery" marks the report of an emit that could not be delivered (no run).
 */
export type TriggerKind = "http" | "subscription" | "replay" | "error" | "delivery";

export interface RunContext {
  id: string;
  ts: string;
  workflow_id: string;
  deployment_id: string;
  source_type: TriggerKind;
  verified: boolean;
  owner_id: string;
  platform_version: string;
}

export function runContext(workflow: WorkflowsTable, trigger: TriggerKind, nowMs: number): RunContext {
  return {
    id: randomString(27),
    ts: new Date(nowMs).toISOString(),
    workflow_id: workflow.id,
    deployment_id: workflow.deployment_id,
    source_type: trigger,
    // Events from inside the platform (subscriptions, replays, errors) are vouched for; a
    // request to a public endpoint carries no signature Sluice could check.
    verified: trigger !== "http",
    owner_id: workflow.user_id,
    platform_version: platformVersion(),
  };
}

export interface WorkflowErrorEvent {
  original_event: unknown;
  original_context: RunContext;
  error: { code: string; cellId: string; ts: string; stack: string };
}

/** `code` is the thrown error's name (TypeError, …), or TIMEOUT / MEMORY_LIMIT / CRASH for a killed run. */
export function errorCode(failure: ExecutionFailure): string {
  switch (failure.kind) {
    case "timeout":
      return "TIMEOUT";
    case "memory":
      return "MEMORY_LIMIT";
    case "crash":
      return "CRASH";
    default:
      return failure.name || "Error";
  }
}

export function workflowErrorEvent(input: {
  event: unknown;
  context: RunContext;
  failure: ExecutionFailure;
  cellId: string;
  nowMs: number;
}): WorkflowErrorEvent {
  return {
    original_event: input.event === undefined ? null : input.event,
    original_context: input.context,
    error: {
      code: errorCode(input.failure),
      cellId: input.cellId,
      ts: new Date(input.nowMs).toISOString(),
      stack: input.failure.stack || `${input.failure.name}: ${input.failure.message}`,
    },
  };
}
