// What the service sends the runner to check or run a workflow's steps, and what comes back.
// Plain data only: step code is evaluated in a runner child process, never in the service.
import type { ExecutionFailure, HttpResponseRecord, LogRecord } from "./execution-records.js";
import type { CodeOrigin, ConfigurableProp } from "./component-execution.js";

/**
 * A stored step. A code step has `code`; an action step names its published component by
 * `action` (registry key, with the `version` it was saved at) or `component_id`, and the
 * service loads it by `componentRef` (the `sc_` id chosen at save). `props` are the configured
 * values, app props as {authProvisionId}. Steps stored before actions existed have no `type`.
 */
export interface WorkflowStepCode {
  id: string;
  name: string;
  type?: "code" | "action";
  code?: string;
  action?: string;
  component_id?: string;
  version?: string;
  componentRef?: string;
  props?: Record<string, unknown>;
}

/** A step as a run needs it: its module's code and origin, and its prop values (app props as {$auth}). */
export interface RunnableStep extends CodeOrigin {
  id: string;
  name: string;
  code: string;
  props?: Record<string, unknown>;
}

export interface WorkflowExecuteRequest {
  userId: string;
  workflowId: string;
  steps: RunnableStep[];
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
  /** Configured prop values: `this.<prop>` (app props as {$auth}). */
  props?: Record<string, unknown>;
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
}

/** What checking steps at save yields: their problems, and the props each step's module declares. */
export interface StepsCheck {
  problems: StepProblem[];
  props: Record<string, ConfigurableProp[]>;
}

/** A step that is not a module with a default export holding `run`. */
export interface StepProblem {
  stepId: string;
  stepName: string;
  message: string;
}
