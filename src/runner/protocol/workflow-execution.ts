// What the service sends the runner to check a workflow's steps or run one of them, and what comes back.
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
  /** Props the action's additionalProps() added for these values at save (Pipedream's dynamic props). */
  extraProps?: ConfigurableProp[];
}

/** A step as a run needs it: its module's code and origin, and its prop values (app props as {$auth}). */
export interface RunnableStep extends CodeOrigin {
  id: string;
  name: string;
  code: string;
  props?: Record<string, unknown>;
  extraProps?: ConfigurableProp[];
}

/** What a step's `$.flow.delay/suspend/rerun` return: the run's links, valid only if it pauses. */
export interface RunLinks {
  resume_url: string;
  cancel_url: string;
}

/**
 * One step of a run, executed on its own runner request: the service stores its result before
 * it asks for the next (durable steps, docs/adr/0036-durable-workflow-runs-driven-step-by-step.md).
 */
export interface WorkflowStepRequest {
  userId: string;
  workflowId: string;
  /** The step, resolved by the service (an action's module, app props with their $auth). */
  step: RunnableStep;
  /** `steps` as the step sees it: `trigger` ({event, context}) and the results of the steps before it. */
  steps: Record<string, unknown>;
  /** `$.context`: the run's context, with `run: {runs, context?, callback_request?}` ($.flow.rerun). */
  context: Record<string, unknown>;
  links: RunLinks;
  timeoutMs?: number;
}

/** What a step asked of the run through `$.flow`; the last call of a step wins. */
export type FlowRequest =
  | { kind: "exit"; reason: string }
  | { kind: "delay"; ms: number }
  | { kind: "suspend"; timeoutMs: number }
  | { kind: "rerun"; delayMs: number; context: unknown; maxReruns: number };

/** A step as the service hands it to a runner: its module, written into the account's module folder. */
export interface PreparedStep {
  id: string;
  name: string;
  entryPath: string;
  /** Configured prop values: `this.<prop>` (app props as {$auth}). */
  props?: Record<string, unknown>;
  /** Props additionalProps() added, bound to `this` like declared ones. */
  extraProps?: ConfigurableProp[];
}

/** An e-mail a step asked for with `$.send.email`; the service sends it to the account owner. */
export interface EmailRequest {
  subject: string;
  text: string;
}

/** A request a step asked for with `$.send.http`; the service makes it after the step is stored. */
export interface HttpSendRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface WorkflowStepResult {
  /** Payloads of `$send.emit` / `$.send.emit`, in call order. */
  emits: unknown[];
  logs: LogRecord[];
  emails: EmailRequest[];
  /** `$.send.http` requests, in call order. */
  httpRequests?: HttpSendRequest[];
  /** Set when the step called `$.respond` (the first call only). */
  response?: HttpResponseRecord;
  returnValue?: unknown;
  /** `$.export`ed values (`$summary` among them). */
  exports: Record<string, unknown>;
  flow?: FlowRequest;
  error?: ExecutionFailure;
  durationMs: number;
}

/** What checking steps at save yields: their problems, and the props each step's module declares. */
export interface StepsCheck {
  problems: StepProblem[];
  props: Record<string, ConfigurableProp[]>;
  /** Steps whose module has additionalProps(). */
  dynamic?: string[];
}

/** A step that is not a module with a default export holding `run`. */
export interface StepProblem {
  stepId: string;
  stepName: string;
  message: string;
}
