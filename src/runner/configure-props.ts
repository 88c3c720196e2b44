// Handlers "props.reload" and "props.options": what a props form asks of a component's code while
// it is being configured, as Pipedream runs it. additionalProps() gives the props that depend on
// the values configured so far; a prop's async options() (its own or its app's propDefinition's)
// gives its choices one page at a time. Both run here in the runner, never in the service.
import type { ConfigurableProp, PropOptions } from "./protocol/component-execution.js";
import { appInstance, componentThis, type ExecutionEffects } from "./component-this.js";
import { DirFiles } from "./dir-interface.js";
import { loadComponent } from "./load-component.js";
import { configurableProp, propSpec } from "./props.js";

/** More than any form shows: a runaway additionalProps() is refused rather than stored. */
const MAX_ADDITIONAL_PROPS = 500;

export interface ConfigurePayload {
  entryPath: string;
  props: Record<string, unknown>;
}

export interface OptionsPayload extends ConfigurePayload {
  prop: string;
  prevContext?: unknown;
  query?: string;
  page?: number;
}

/** What options() answered, or why there is nothing to call (the service says it to the caller). */
export type OptionsResult = PropOptions | { problem: "unknown-prop" | "no-options" };

export class PropsError extends Error {
  override name = "PropsError";
}

export async function reloadProps(payload: ConfigurePayload): Promise<ConfigurableProp[]> {
  const definition = await loadComponent(payload.entryPath);
  const added = await additionalProps(definition, payload.props);
  return Object.entries(added).map(([name, raw]) => configurableProp(name, raw));
}

export async function propOptions(payload: OptionsPayload): Promise<OptionsResult> {
  const definition = await loadComponent(payload.entryPath);
  const own = ownProps(definition);
  let raw: unknown = Object.hasOwn(own, payload.prop) ? own[payload.prop] : undefined;
  if (raw === undefined && typeof definition.additionalProps === "function") {
    const added = await additionalProps(definition, payload.props);
    if (Object.hasOwn(added, payload.prop)) raw = added[payload.prop];
  }
  if (raw === undefined) return { problem: "unknown-prop" };
  const spec = propSpec(raw);
  if (Array.isArray(spec.options)) return { options: jsonSafe(spec.options) as unknown[], context: null };
  if (typeof spec.options !== "function") return { problem: "no-options" };
  const self = configuringThis(definition, payload.props);
  // A propDefinition's options() run with its app as `this` ($auth and the app's methods), and
  // take what the definition's third element derives from the values configured so far.
  const ref = (raw as Record<string, any>)?.propDefinition;
  const fromDefinition = Array.isArray(ref) && typeof ref[0] === "object" && !(raw as Record<string, any>).options;
  const target = fromDefinition ? appThis(definition, ref[0], payload.props) : self;
  const extra = fromDefinition && typeof ref[2] === "function" ? await ref[2].call(self, self) : {};
  const args = {
    page: Number.isInteger(payload.page) ? payload.page : 0,
    prevContext: payload.prevContext && typeof payload.prevContext === "object" ? payload.prevContext : {},
    ...(typeof payload.query === "string" ? { query: payload.query } : {}),
    ...(extra && typeof extra === "object" ? extra : {}),
  };
  const answer = await explained(() => spec.options.call(target, args));
  if (Array.isArray(answer)) return { options: jsonSafe(answer) as unknown[], context: null };
  if (answer && typeof answer === "object" && Array.isArray(answer.options))
    return { options: jsonSafe(answer.options) as unknown[], context: jsonSafe(answer.context ?? null) };
  throw new PropsError(`options() of prop "${payload.prop}" must return an array or {options, context}`);
}

/** additionalProps(), called as Pipedream does: `this` holds the configured values, the argument the component's own props. */
async function additionalProps(definition: Record<string, any>, configured: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (typeof definition.additionalProps !== "function") return {};
  const added = await explained(() => definition.additionalProps.call(configuringThis(definition, configured), ownProps(definition)));
  if (added === undefined || added === null) return {};
  if (typeof added !== "object" || Array.isArray(added)) throw new PropsError("additionalProps() must return an object of props");
  const own = ownProps(definition);
  const entries = Object.entries(added as Record<string, unknown>).filter(([name]) => !Object.hasOwn(own, name));
  if (entries.length > MAX_ADDITIONAL_PROPS)
    throw new PropsError(`additionalProps() returned ${entries.length} props, over the limit of ${MAX_ADDITIONAL_PROPS}`);
  return Object.fromEntries(entries);
}

const ownProps = (definition: Record<string, any>): Record<string, unknown> =>
  definition.props && typeof definition.props === "object" ? definition.props : {};

/** The component's `this` while it is configured: values, app props with $auth, methods; nothing it does is kept. */
function configuringThis(definition: Record<string, any>, configured: Record<string, unknown>): Record<string, any> {
  const effects: ExecutionEffects = {
    emits: [],
    state: {},
    dir: new DirFiles({}, { maxFiles: 0, maxBytes: 0 }),
    onResponse: () => {},
    // Configuring reads nothing stored: a data store is only reachable while the component runs.
    callService: async () => {
      throw new PropsError("data stores are not available while props are configured");
    },
  };
  return componentThis(definition, { props: configured, context: { sourceId: "" } }, effects);
}

/** The app a propDefinition names, with the account of the component's prop of that app. */
function appThis(definition: Record<string, any>, app: Record<string, any>, configured: Record<string, unknown>): Record<string, any> {
  const appName = (raw: unknown, name: string) => {
    const spec = propSpec(raw);
    return spec.type === "app" ? (typeof spec.app === "string" ? spec.app : name) : undefined;
  };
  const wanted = typeof app.app === "string" ? app.app : undefined;
  const match = Object.entries(ownProps(definition)).find(
    ([name, raw]) => raw === app || (wanted !== undefined && appName(raw, name) === wanted),
  );
  return appInstance(app, match ? configured[match[0]] : undefined);
}

/**
 * Runs configuration code, adding the cause to what it throws: fetch() says only "fetch failed",
 * and the reason (the network refused, nothing listening) is what the person configuring needs.
 */
async function explained<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (thrown) {
    const cause = (thrown as { cause?: { message?: unknown; code?: unknown } })?.cause;
    const reason =
      typeof cause?.message === "string" && cause.message !== "" ? cause.message : typeof cause?.code === "string" ? cause.code : "";
    if (thrown instanceof Error && reason && !thrown.message.includes(reason)) thrown.message = `${thrown.message} (${reason})`;
    throw thrown;
  }
}

function jsonSafe(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}
