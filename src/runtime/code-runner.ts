// The contract between the service and the sandboxed code runner (src/runtime). The service
// never evaluates user code itself: it sends code and inputs to a runner child process and
// gets back plain data. Sources and workflows (src/runtime/workflow) both use this interface.
import type { ExecutionFailure, HttpResponseRecord, LogRecord } from "./execution-records.js";
import type { StepProblem, WorkflowExecuteRequest, WorkflowExecuteResult, WorkflowStepCode } from "./workflow/workflow-execution.js";

export type { ExecutionFailure, HttpResponseRecord, LogRecord };

/** One entry of a component's `configurable_props`, as the spec shows it. */
export interface ConfigurableProp {
  name: string;
  type: string;
  label?: string;
  description?: string;
  optional?: boolean;
  default?: unknown;
  options?: unknown[];
  /** For `$.interface.http`: whether the component answers with `this.http.respond`. */
  customResponse?: boolean;
  /** For app props: the app's name (`app` field). */
  app?: string;
  /** For `$.interface.apphook`: the app prop whose connected account's events run the source. */
  appProp?: string;
  /** For `$.interface.apphook`: the event names when the code gives them as an array (not a function). */
  eventNames?: string[];
  /** For `dir` props: "read", "write" or "read-write", and whether files sync (kept as given). */
  accessMode?: string;
  sync?: boolean;
  /** For `alert` props (display only, no value): "info", "warning", "error", … and the text. */
  alertType?: string;
  content?: string;
}

/** What inspecting a component's code yields (evaluated in the runner, never in the service). */
export interface ComponentMetadata {
  key: string | null;
  name: string;
  version: string;
  description: string | null;
  type: string; // "source" when absent
  dedupe: "unique" | "greatest" | "last" | null;
  configurable_props: ConfigurableProp[];
  hooks: Array<"deploy" | "activate" | "deactivate">;
}

/**
 * A component loaded from an installed npm package (registry packages): the file at `path`
 * inside `name@version`, whose relative imports and npm dependencies resolve there.
 */
export interface PackageEntry {
  name: string;
  /** An exact version: every host installs this one. */
  version: string;
  /** The component's file, relative to the package's folder (e.g. "sources/new-item/new-item.mjs"). */
  path: string;
}

/** Where a component's code is loaded from besides its text: its URL, its files or its package. */
export interface CodeOrigin {
  /** The URL relative imports resolve against. */
  codeUrl?: string;
  /** For relative imports of code deployed from local files: their code by relative path. */
  files?: Record<string, string>;
  /** For a component of a registry package: loaded from the installed package instead of `code`. */
  package?: PackageEntry;
}

export interface EmitRecord {
  event: unknown;
  meta: { id?: string | number; name?: string; summary?: string; ts?: number };
}

export interface ExecuteRequest extends CodeOrigin {
  userId: string;
  /** The component's code (see CodeOrigin for where its imports come from). */
  code: string;
  /**
   * `run`, a lifecycle hook, or `eventNames`: the event names each `$.interface.apphook` prop
   * chooses (its `eventNames`, an array or a function called with the component's `this`).
   */
  entry: "run" | "deploy" | "activate" | "deactivate" | "eventNames";
  /** The event passed to run(event). */
  event?: unknown;
  /** Configured values of the component's plain props (strings, numbers, ...), by name. */
  props: Record<string, unknown>;
  /** The source's `$.service.db` contents before this execution. */
  state: Record<string, unknown>;
  /** For a `dir` prop: the source's files (base64 by relative path) before this execution. */
  dir?: Record<string, string>;
  /** Values the runner exposes to the code (e.g. the HTTP endpoint URL, the source id). */
  context: { sourceId: string; endpointUrl?: string };
  timeoutMs?: number;
}

export interface ExecuteResult {
  emits: EmitRecord[];
  logs: LogRecord[];
  /** The `$.service.db` contents after the execution (unchanged when nothing was set). */
  state: Record<string, unknown>;
  /** Set when the code called this.http.respond (the first call only). */
  response?: HttpResponseRecord;
  /** What the code wrote to and deleted from a `dir` prop's files, if anything. */
  dir?: DirChanges;
  /** For the `eventNames` entry: each apphook prop's event names by prop name ([] for all events). */
  eventNames?: Record<string, string[]>;
  error?: ExecutionFailure;
  durationMs: number;
}

/** Files written (base64 by relative path) and deleted in a `dir` prop. */
export interface DirChanges {
  written: Record<string, string>;
  deleted: string[];
}

/** What one execution may emit: events, their bytes in all, the bytes of one event (JSON). */
export interface RunLimits {
  maxEmits: number;
  maxEmitBytes: number;
  maxEventBytes: number;
  /** A source's `dir` files in all and their counted bytes (runtime/dir-rules.ts); uncapped when absent. */
  maxDirFiles?: number;
  maxDirBytes?: number;
}

export interface CodeRunner {
  /** Evaluates code in a runner and returns its metadata; a ServiceError VALIDATION on bad code. */
  inspectComponent(input: { userId: string; code: string } & CodeOrigin): Promise<ComponentMetadata>;
  /**
   * Runs one entry point. Resolves (never rejects) for failures of user code, which come back
   * in `error`. `onResponse` fires as soon as the code calls this.http.respond, before the
   * execution ends, so an HTTP request can be answered early.
   */
  execute(request: ExecuteRequest, options?: { onResponse?: (response: HttpResponseRecord) => void }): Promise<ExecuteResult>;
  /** Workflows (src/runtime/workflow): checks step code at save time (problems, not throws). */
  checkWorkflowSteps(input: { userId: string; steps: WorkflowStepCode[] }): Promise<StepProblem[]>;
  /** Runs a workflow's steps in order; like execute(), resolves for failures of user code. */
  executeWorkflow(request: WorkflowExecuteRequest, options?: { onResponse?: (response: HttpResponseRecord) => void }): Promise<WorkflowExecuteResult>;
  close(): Promise<void>;
}
