// The `eventNames` entry: the event names each `$.interface.apphook` prop chooses. As on
// Pipedream, `eventNames` is an array or a function (possibly async) called with the
// component's `this`, so it may read the configured props and call methods. No list, or an
// empty one, means every event.
import { APPHOOK, propSpec } from "./props.js";
import { MAX_EVENT_NAME_LENGTH, MAX_EVENT_NAMES } from "./protocol/component-execution.js";

export async function apphookEventNames(definition: Record<string, any>, self: Record<string, any>): Promise<Record<string, string[]>> {
  const props = definition.props && typeof definition.props === "object" ? (definition.props as Record<string, unknown>) : {};
  const chosen: Record<string, string[]> = {};
  for (const [name, raw] of Object.entries(props)) {
    const spec = propSpec(raw);
    if (spec.type !== APPHOOK) continue;
    const given: unknown = typeof spec.eventNames === "function" ? await spec.eventNames.call(self) : spec.eventNames;
    chosen[name] = checkedNames(name, given);
  }
  return chosen;
}

function checkedNames(prop: string, given: unknown): string[] {
  if (given === undefined || given === null) return [];
  const what = `eventNames of the apphook prop "${prop}"`;
  if (!Array.isArray(given) || !given.every((name) => typeof name === "string")) throw new TypeError(`${what} must be an array of strings`);
  const names = [...new Set(given as string[])];
  if (names.length > MAX_EVENT_NAMES) throw new RangeError(`${what} gave ${names.length} names, over the limit of ${MAX_EVENT_NAMES}`);
  if (names.some((name) => name.length > MAX_EVENT_NAME_LENGTH))
    throw new RangeError(`${what} gave a name longer than ${MAX_EVENT_NAME_LENGTH} characters`);
  return names;
}
