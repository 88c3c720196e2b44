// The `this` of run(), hooks and methods: prop values by name, the methods, $emit, and the
// interface objects ($.service.db, $.interface.http, timers, app props with bound methods, dir,
// apphooks, data stores).
import type { EmitRecord, HttpResponseRecord } from "./protocol/component-execution.js";
import { dataStoreProp, type CallService } from "./data-store-prop.js";
import { DirFiles, dirInterface } from "./dir-interface.js";
import { APPHOOK, propSpec, timerDefault } from "./props.js";
import { toResponseRecord } from "./response-record.js";
import { emitBudget, RUN_LIMITS } from "./run-limits.js";

export interface ExecutionEffects {
  emits: EmitRecord[];
  state: Record<string, unknown>;
  /** The files of `dir` props (one set per source, shared by its dir props). */
  dir: DirFiles;
  response?: HttpResponseRecord;
  onResponse(response: HttpResponseRecord): void;
  /** Asks the service during the execution (data store operations). */
  callService: CallService;
}

export function componentThis(
  definition: Record<string, any>,
  input: {
    props: Record<string, unknown>;
    context: { sourceId: string; endpointUrl?: string };
    /** Props additionalProps() gave this source: plain data, read like the component's own. */
    extraProps?: Array<{ name: string }>;
  },
  effects: ExecutionEffects,
): Record<string, any> {
  const self: Record<string, any> = {};
  const props = definition.props && typeof definition.props === "object" ? (definition.props as Record<string, unknown>) : {};
  const entries: Array<[string, unknown]> = Object.entries(props);
  for (const extra of input.extraProps ?? []) if (!(extra.name in props)) entries.push([extra.name, extra]);
  for (const [name, raw] of entries) {
    const spec = propSpec(raw);
    const configured = input.props[name];
    switch (spec.type) {
      case "$.service.db":
        self[name] = dbInterface(effects);
        break;
      case "$.interface.http":
        self[name] = httpInterface(input.context.endpointUrl, effects);
        break;
      case "$.interface.timer":
        self[name] = configured ?? timerDefault(spec) ?? null;
        break;
      case "app":
        self[name] = appInstance(raw as Record<string, any>, configured);
        break;
      case "dir":
        self[name] = dirInterface(effects.dir);
        break;
      case "data_store":
        self[name] = dataStoreProp(configured, effects.callService);
        break;
      case "alert":
        break; // display only: no value
      case APPHOOK:
        // Its events arrive as run(event); the object only names the app prop it follows.
        self[name] = { appProp: typeof spec.appProp === "string" ? spec.appProp : undefined };
        break;
      default:
        self[name] = configured !== undefined ? configured : spec.default;
    }
  }
  for (const [name, method] of Object.entries((definition.methods ?? {}) as Record<string, unknown>)) {
    if (typeof method === "function") self[name] = method.bind(self);
  }
  const spend = emitBudget(RUN_LIMITS);
  self.$emit = (event: unknown, meta?: Record<string, unknown>) => {
    const text = JSON.stringify(event === undefined ? null : event) ?? "null";
    spend(Buffer.byteLength(text));
    effects.emits.push({ event: JSON.parse(text), meta: emitMeta(meta) });
  };
  self.$sourceId = input.context.sourceId;
  return self;
}

function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

function emitMeta(meta: Record<string, unknown> | undefined): EmitRecord["meta"] {
  const out: EmitRecord["meta"] = {};
  if (!meta || typeof meta !== "object") return out;
  if (typeof meta.id === "string" || (typeof meta.id === "number" && Number.isFinite(meta.id))) out.id = meta.id;
  if (typeof meta.name === "string" && meta.name !== "") out.name = meta.name;
  if (typeof meta.summary === "string") out.summary = meta.summary;
  const ts = typeof meta.ts === "string" ? Number(meta.ts) : meta.ts;
  if (typeof ts === "number" && Number.isFinite(ts)) out.ts = ts;
  return out;
}

function dbInterface(effects: ExecutionEffects) {
  return {
    get: (key: string) => {
      const value = effects.state[String(key)];
      return value === undefined ? undefined : structuredClone(value);
    },
    set: (key: string, value: unknown) => {
      effects.state = { ...effects.state, [String(key)]: toJson(value) };
    },
  };
}

function httpInterface(endpoint: string | undefined, effects: ExecutionEffects) {
  return {
    endpoint,
    respond(response: { status?: number | string; headers?: Record<string, unknown>; body?: unknown }) {
      if (effects.response) return; // the first response wins; later calls are ignored
      const record = toResponseRecord(response, "this.http.respond");
      effects.response = record;
      effects.onResponse(record);
    },
  };
}

/** An app prop: its methods bound to an object holding `$auth` and the app's other fields. */
export function appInstance(definition: Record<string, any>, configured: unknown): Record<string, any> {
  const app: Record<string, any> = {};
  for (const [name, value] of Object.entries(definition ?? {})) if (name !== "methods") app[name] = value;
  const auth = configured && typeof configured === "object" ? (configured as Record<string, any>).$auth : undefined;
  app.$auth = auth ?? {};
  for (const [name, method] of Object.entries((definition?.methods ?? {}) as Record<string, unknown>)) {
    if (typeof method === "function") app[name] = method.bind(app);
  }
  return app;
}
