// The `this` of a step's run({ steps, $ }), as Pipedream gives a code step or an action that
// declares props: each prop's configured value by name (its default when none was given),
// app props as the app object with `$auth` and the app's methods bound to it, and the step's
// own methods. What is not a prop or a method still reads from the step's definition, so a
// step without props sees `this` as before. Plain values' `{{ … }}` expressions are evaluated
// against `scope` (the run's steps so far); without a scope (a check at save) they stay text.
import { appInstance } from "../component-this.js";
import { dataStoreProp, type CallService } from "../data-store-prop.js";
import { propSpec } from "../props.js";
import { evaluatePropValue, type ExpressionScope } from "./prop-expressions.js";

/** Props with nothing to configure in a step: display-only ones. */
const VALUELESS = new Set(["alert"]);

export function stepThis(
  definition: Record<string, any>,
  configured: Record<string, unknown> = {},
  callService: CallService = noService,
  extraProps: Array<{ name: string }> = [],
  scope?: ExpressionScope,
): Record<string, any> {
  const self: Record<string, any> = Object.create(definition);
  const declared = definition.props && typeof definition.props === "object" ? (definition.props as Record<string, unknown>) : {};
  // Props additionalProps() added (kept by the service since save) are bound like declared ones.
  const props: Record<string, unknown> = { ...declared };
  for (const extra of extraProps) if (!(extra.name in props)) props[extra.name] = extra;
  for (const [name, raw] of Object.entries(props)) {
    const spec = propSpec(raw);
    if (VALUELESS.has(spec.type)) continue;
    const value = configured[name];
    if (spec.type === "app") self[name] = appInstance(raw as Record<string, any>, value);
    else if (spec.type === "data_store") self[name] = dataStoreProp(value, callService);
    else if (value === undefined) self[name] = spec.default;
    else self[name] = scope ? evaluatePropValue(value, scope, name) : value;
  }
  for (const [name, method] of Object.entries((definition.methods ?? {}) as Record<string, unknown>)) {
    if (typeof method === "function") self[name] = method.bind(self);
  }
  return self;
}

/** Outside a run (a save-time check) nothing stored is reachable. */
const noService: CallService = async () => {
  throw new Error("data stores are reachable only while the step runs");
};
