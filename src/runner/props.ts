// Normalises a component's props into the spec's configurable_props: shorthand strings
// ("$.service.db", "string", "$.interface.http"), propDefinitions of app props, timer
// defaults in their object and legacy placement, HTTP customResponse, what an alert shows,
// and the app prop and static event names of an apphook.
import type { ConfigurableProp } from "./protocol/component-execution.js";
import { builtInDefinition } from "./built-in-apps.js";

export const APPHOOK = "$.interface.apphook";

const SHORTHAND_FIELDS = ["label", "description", "optional", "default", "options", "secret", "min", "max"] as const;

export function propSpec(raw: unknown): Record<string, any> {
  if (typeof raw === "string") return { type: raw };
  if (raw && typeof raw === "object") {
    const spec = raw as Record<string, any>;
    const definition = propDefinitionOf(spec);
    return definition ? { ...definition, ...withoutKey(spec, "propDefinition") } : spec;
  }
  return { type: "any" };
}

/** `propDefinition: [app, "name", …]` takes its fields from the app's propDefinitions (else a built-in app's, built-in-apps.ts). */
function propDefinitionOf(spec: Record<string, any>): Record<string, any> | undefined {
  const ref = spec.propDefinition;
  if (!Array.isArray(ref) || ref.length < 2) return undefined;
  const [app, name] = ref as [Record<string, any> | undefined, string];
  const definition = app?.propDefinitions?.[name];
  return definition && typeof definition === "object" ? { ...definition } : builtInDefinition(app, name);
}

function withoutKey(object: Record<string, any>, key: string): Record<string, any> {
  const { [key]: _omitted, ...rest } = object;
  return rest;
}

/** A timer's default schedule, from `default` or the legacy fields on the prop itself. */
export function timerDefault(spec: Record<string, any>): { intervalSeconds?: number; cron?: string } | undefined {
  const source = spec.default && typeof spec.default === "object" ? spec.default : spec;
  if (typeof source.cron === "string") return { cron: source.cron };
  const interval = Number(source.intervalSeconds ?? source.interval_seconds);
  if (Number.isFinite(interval) && interval > 0) return { intervalSeconds: interval };
  return undefined;
}

export function configurableProp(name: string, raw: unknown): ConfigurableProp {
  const spec = propSpec(raw);
  const type = typeof spec.type === "string" ? spec.type : "any";
  const prop: ConfigurableProp & Record<string, unknown> = { name, type };
  for (const field of SHORTHAND_FIELDS) {
    const value = spec[field];
    if (value === undefined || typeof value === "function") continue;
    if (field === "options" && !Array.isArray(value)) continue;
    (prop as Record<string, unknown>)[field] = jsonSafe(value);
  }
  // Pipedream's markers for a props form: a change reloads the props (additionalProps), the
  // options come from code (POST …/props/{prop}/options), and whether they take a search query.
  if (spec.reloadProps === true) prop.reloadProps = true;
  if (typeof spec.options === "function") prop.remoteOptions = true;
  if (spec.useQuery === true) prop.useQuery = true;
  if (type === "$.interface.timer") {
    const schedule = timerDefault(spec);
    if (schedule) prop.default = schedule;
  }
  if (type === "$.interface.http") prop.customResponse = spec.customResponse === true;
  if (type === "app") prop.app = typeof spec.app === "string" ? spec.app : name;
  if (type === APPHOOK) {
    if (typeof spec.appProp === "string") prop.appProp = spec.appProp;
    // A function is evaluated per source (it may read props); only a plain list is shown here.
    if (Array.isArray(spec.eventNames) && spec.eventNames.every((n: unknown) => typeof n === "string"))
      prop.eventNames = [...spec.eventNames];
  }
  if (type === "dir") {
    if (typeof spec.accessMode === "string") prop.accessMode = spec.accessMode;
    if (typeof spec.sync === "boolean") prop.sync = spec.sync;
  }
  if (type === "alert") {
    // Shown to whoever configures the source; it takes no value.
    if (typeof spec.alertType === "string") prop.alertType = spec.alertType;
    if (typeof spec.content === "string") prop.content = spec.content;
  }
  return prop;
}

function jsonSafe(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return undefined;
  }
}
