// Handler "execute": runs run(event), a lifecycle hook, or the apphook props' eventNames of a
// component and returns what it emitted, logged, stored, answered and chose. An error thrown
// by the code is a result, not a failure of the runner.
import type { ChildExecuteResult, ExecuteRequest, HttpResponseRecord, LogRecord } from "./protocol/component-execution.js";
import { apphookEventNames } from "./apphook-event-names.js";
import { captureLogs } from "./console-capture.js";
import { componentThis, type ExecutionEffects } from "./component-this.js";
import { DirFiles } from "./dir-interface.js";
import { loadComponent, requireRun } from "./load-component.js";
import { RUN_LIMITS } from "./run-limits.js";
import type { HandlerTools } from "./protocol/messages.js";
import { cleanStack } from "./clean-stack.js";

export interface ExecutePayload {
  entryPath: string;
  entry: ExecuteRequest["entry"];
  event?: unknown;
  props: Record<string, unknown>;
  state: Record<string, unknown>;
  dir?: Record<string, string>;
  context: { sourceId: string; endpointUrl?: string };
  extraProps?: Array<{ name: string }>;
}

export async function execute(payload: ExecutePayload, tools: HandlerTools): Promise<ChildExecuteResult> {
  const logs: LogRecord[] = [];
  // The response goes to the service early only when the run goes on after giving it (it then
  // gets through even if the run times out); a run that ends first carries it in its result,
  // which saves a message per request on the ingest path.
  let earlyResponse: NodeJS.Immediate | undefined;
  const effects: ExecutionEffects = {
    emits: [],
    state: payload.state ?? {},
    dir: new DirFiles(payload.dir, { maxFiles: RUN_LIMITS.maxDirFiles ?? Infinity, maxBytes: RUN_LIMITS.maxDirBytes ?? Infinity }),
    onResponse: (response: HttpResponseRecord) => {
      earlyResponse = setImmediate(() => tools.emitEvent({ response }));
    },
    callService: tools.callService,
  };
  captureLogs(logs);
  let error: ChildExecuteResult["error"];
  let eventNames: ChildExecuteResult["eventNames"];
  try {
    const definition = await loadComponent(payload.entryPath);
    requireRun(definition);
    const self = componentThis(definition, payload, effects);
    if (payload.entry === "eventNames") {
      eventNames = await apphookEventNames(definition, self);
    } else {
      const fn =
        payload.entry === "run" ? (typeof definition.run === "function" ? definition.run : emitEvent) : definition.hooks?.[payload.entry];
      if (typeof fn === "function") await fn.call(self, payload.entry === "run" ? payload.event : undefined);
    }
  } catch (thrown) {
    error = errorData(thrown);
  } finally {
    captureLogs(undefined);
    clearImmediate(earlyResponse);
  }
  const dir = effects.dir.changes();
  return {
    emits: effects.emits,
    logs,
    state: effects.state,
    ...(effects.response ? { response: effects.response } : {}),
    ...(dir ? { dir } : {}),
    ...(eventNames ? { eventNames } : {}),
    ...(error ? { error } : {}),
  };
}

/** run() of a timer source that has none: the event (a timer's {timestamp, interval_seconds}) is emitted. */
function emitEvent(this: Record<string, any>, event: unknown): void {
  this.$emit(event);
}

export function errorData(thrown: unknown): { kind: "error"; name: string; message: string; stack: string } {
  if (thrown instanceof Error)
    return { kind: "error", name: thrown.name, message: thrown.message, stack: cleanStack(String(thrown.stack ?? "")) };
  const message = typeof thrown === "string" ? thrown : safeJson(thrown);
  return { kind: "error", name: "Error", message, stack: "" };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
