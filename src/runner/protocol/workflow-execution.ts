// What the service sends the runner to check or run a workflow's steps, and what comes back.
// Plain data only: step code is evaluated in a runner child process, never in the service.
import type { ExecutionFailure, HttpResponseRecord, LogRecord } from "./execution-records.js";

export interface WorkflowStepCode {
  id: string;
  name: string;
  code: string;
}

export interface WorkflowExecuteRequest {
  userId: string;
  workflowId: string;
  steps: WorkflowStepCode[];
  /** The event that started the run: `steps.trigger.event`. */
  event: unknown;
  /** Exposed to steps as `steps.trigger.context`. */
  context: Record<string, unknown>;
  timeoutMs?: number;
}

/** A step as the service hands it to a runner: its module, written into the account's module folder. */
export interface PreparedStep {
  id: string;
  name: string;
  entryPath: string;
}

/** An e-mail a step asked for with `$.send.email`; the service sends it to the account owner. */
export interface EmailRequest {
  subject: string;
  text: string;
}

export interface WorkflowExecuteResult {
  /** Payloads of `$send.emit` / `$.send.emit`, in call order. */
  emits: unknown[];
  logs: LogRecord[];
  emails: EmailRequest[];
  /** Set when a step called `$.respond` (the first call only). */
  response?: HttpResponseRecord;
  /** Per executed step: its return value and `$.export`ed values. */
  stepResults: Array<{ id: string; name: string; returnValue: unknown; exports: Record<string, unknown> }>;
  /** A step called `$.flow.exit()`. */
  exited: boolean;
  /** The step that failed or was running when the run was killed. */
  failedStepId?: string;
  error?: ExecutionFailure;
  durationMs: number;
  /** For each step that started, in order: the index in `logs` of its first console line. */
  logStarts?: number[];
}

/** A step that is not a module with a default export holding `run`. */
export interface StepProblem {
  stepId: string;
  stepName: string;
  message: string;
}
