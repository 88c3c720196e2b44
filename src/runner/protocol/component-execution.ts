// What the service sends a runner to inspect or run a component, and what comes back: plain
// data, the same on both sides of the runner boundary (src/runtime's CodeRunner carries it; a
// runner of src/runner produces it). It imports nothing but the protocol's other parts.
import type { ExecutionFailure, HttpResponseRecord, LogRecord } from "./execution-records.js";

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
  /** A change of this prop's value reloads the component's props (its additionalProps()). */
  reloadProps?: boolean;
  /** The options come from the component's async options() (POST /components/{id}/props/{prop}/options). */
  remoteOptions?: boolean;
  /** The options() take the text typed so far as `query`. */
  useQuery?: boolean;
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
  /** Whether the component has additionalProps(): each source's props then depend on its configured values. */
  additional_props?: boolean;
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
  /** The props the component's additionalProps() added for this source (their values are in `props`). */
  extraProps?: ConfigurableProp[];
  timeoutMs?: number;
}

/** Configuration-time requests: additionalProps() with the configured values, or one prop's options. */
export interface ConfigureRequest extends CodeOrigin {
  userId: string;
  code: string;
  /** Configured values by name, app props as `{$auth}`. */
  props: Record<string, unknown>;
}

export interface PropOptionsRequest extends ConfigureRequest {
  prop: string;
  prevContext?: unknown;
  query?: string;
  page?: number;
}

/** What a prop's options() gave: the options and the context of the next page (Pipedream's prevContext). */
export interface PropOptions {
  options: unknown[];
  context: unknown;
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
  /** A source's `dir` files in all and their counted bytes (protocol/dir-rules.ts); uncapped when absent. */
  maxDirFiles?: number;
  maxDirBytes?: number;
}

/** What a runner answers to "execute": the service adds the duration it measured. */
export type ChildExecuteResult = Omit<ExecuteResult, "durationMs">;

/** The `eventNames` entry's caps: names per apphook prop and the length of one. */
export const MAX_EVENT_NAMES = 1000;
export const MAX_EVENT_NAME_LENGTH = 1024;
