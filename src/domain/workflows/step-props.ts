// A step's configured props, checked at save against the props its module declares, the way a
// source's configured_props are: required values present, plain values of their declared type
// (and among static options), data stores as {dataStoreId}, app props as a connected account
// (an inline {$auth} becomes one, remembered by step and prop, and is never stored or shown).
// A problem is a 400 naming the step and the prop.
import type { Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import type { ComponentMetadata, ConfigurableProp } from "../../runtime/code-runner.js";
import { storeAppProps } from "../accounts/app-props.js";
import { checkDataStoreProps } from "../data-stores/data-store-props.js";
import { holdsExpression } from "../../runner/protocol/prop-expressions.js";

/** Props that take no value in a step (display-only, or interfaces that only sources have). */
const VALUELESS = new Set(["alert", "dir", "$.service.db", "$.interface.http", "$.interface.timer", "$.interface.apphook"]);
export const DATA_STORE = "data_store";

export async function storeStepProps(
  ctx: Ctx,
  input: { userId: string; step: { id: string; name: string }; declared: ConfigurableProp[]; configured: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  const where = `step "${input.step.name}": props`;
  const stored: Record<string, unknown> = { ...input.configured };
  for (const prop of input.declared) {
    if (VALUELESS.has(prop.type)) {
      delete stored[prop.name];
      continue;
    }
    if (prop.type === "app") continue; // below, with the connected accounts
    const value = stored[prop.name];
    if (value === undefined || value === null) {
      delete stored[prop.name];
      if (!prop.optional && prop.default === undefined) throw invalid(`${where}.${prop.name} is required`);
      continue;
    }
    // `{{ … }}` is evaluated in the runner when the step runs: its type is known only then.
    if (prop.type !== DATA_STORE && holdsExpression(value)) continue;
    const problem = prop.type === DATA_STORE ? dataStoreProblem(value) : valueProblem(prop, value);
    if (problem) throw invalid(`${where}.${prop.name} ${problem}`);
  }
  // The shape was checked above; the store must also be one of this account's.
  await checkDataStoreProps(ctx, { userId: input.userId, props: input.declared, configured: stored, where });
  const metadata = { configurable_props: input.declared } as ComponentMetadata;
  try {
    return await storeAppProps(ctx, { userId: input.userId, sourceId: input.step.id, metadata, configured: stored });
  } catch (error) {
    // Its messages name `configured_props.<prop>`: a step's are `step "<name>": props.<prop>`.
    if (error instanceof ServiceError && error.message.startsWith("configured_props."))
      throw new ServiceError(error.code, `${where}.${error.message.slice("configured_props.".length)}`, { cause: error });
    throw error;
  }
}

function dataStoreProblem(value: unknown): string | undefined {
  const id = (value as { dataStoreId?: unknown }).dataStoreId;
  const ok = typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 1 && typeof id === "string";
  return ok && id.startsWith("ds_") ? undefined : 'must be a data store, {"dataStoreId": "ds_…"}';
}

const TYPES: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  object: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
};

function valueProblem(prop: ConfigurableProp & { min?: unknown; max?: unknown }, value: unknown): string | undefined {
  const list = prop.type.endsWith("[]");
  const itemType = list ? prop.type.slice(0, -2) : prop.type;
  const check = TYPES[itemType];
  // Types this check does not know ("any", "sql", …) take any JSON value.
  if (!check) return undefined;
  if (list && !Array.isArray(value)) return `must be an array of ${itemType} values`;
  const items = list ? (value as unknown[]) : [value];
  for (const item of items) {
    if (!check(item)) return list ? `must be an array of ${itemType} values` : `must be ${itemType === "integer" ? "an" : "a"} ${itemType}`;
    if (itemType === "integer") {
      if (typeof prop.min === "number" && (item as number) < prop.min) return `must be at least ${prop.min}`;
      if (typeof prop.max === "number" && (item as number) > prop.max) return `must be at most ${prop.max}`;
    }
    const allowed = staticOptions(prop);
    if (allowed && !allowed.some((option) => option === item)) return `must be one of its options: ${JSON.stringify(allowed)}`;
  }
  return undefined;
}

/** The values a prop's static `options` allow ({label, value} or plain values); undefined when any is possible. */
function staticOptions(prop: ConfigurableProp): unknown[] | undefined {
  if (!Array.isArray(prop.options) || prop.options.length === 0) return undefined;
  return prop.options.map((option) =>
    option && typeof option === "object" && "value" in option ? (option as { value: unknown }).value : option,
  );
}
