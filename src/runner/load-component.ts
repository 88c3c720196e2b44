// Loads a prepared component module (written by the service into the account's module
// folder, named by code hash) and returns its definition. Node's module cache keeps the
// compiled code per path, so a warm runner loads each code hash once.
import { pathToFileURL } from "node:url";
import { propSpec } from "./props.js";

export class InvalidComponentError extends Error {
  override name = "InvalidComponentError";
}

// The definition per entry path: a warm runner skips even the module cache's import() on the
// hot path (a code hash never changes content).
const definitions = new Map<string, Record<string, any>>();

export async function loadComponent(entryPath: string): Promise<Record<string, any>> {
  const known = definitions.get(entryPath);
  if (known) return known;
  const definition = await importDefinition(entryPath);
  definitions.set(entryPath, definition);
  return definition;
}

async function importDefinition(entryPath: string): Promise<Record<string, any>> {
  let mod: Record<string, any>;
  try {
    mod = await import(pathToFileURL(entryPath).href);
  } catch (error) {
    const e = error as Error;
    throw new InvalidComponentError(`the component code could not be loaded: ${e?.name ?? "Error"}: ${e?.message ?? String(error)}`, {
      cause: error,
    });
  }
  let definition = mod.default;
  // CommonJS that was transpiled from ESM keeps the component on `.default`.
  if (
    definition &&
    typeof definition === "object" &&
    typeof definition.run !== "function" &&
    definition.default &&
    typeof definition.default === "object"
  ) {
    definition = definition.default;
  }
  if (!definition || typeof definition !== "object") {
    throw new InvalidComponentError("the component code must export an object (export default {…} or module.exports = {…})");
  }
  return definition;
}

/**
 * A timer source may leave run() out: it then emits each timer event as it is. So may an e-mail
 * source (an app prop of the "email" app), whose e-mails the service stores without running code.
 */
export function requireRun(definition: Record<string, any>): void {
  if (typeof definition.run === "function" || hasTimer(definition) || hasEmail(definition)) return;
  throw new InvalidComponentError(
    "the component has no run() method: a component must define run(event) (only a timer source or an e-mail source may leave it out)",
  );
}

const propsOf = (definition: Record<string, any>): Array<[string, unknown]> =>
  definition.props && typeof definition.props === "object" ? Object.entries(definition.props as Record<string, unknown>) : [];

export function hasTimer(definition: Record<string, any>): boolean {
  return propsOf(definition).some(([, raw]) => propSpec(raw).type === "$.interface.timer");
}

/** An app prop names its app with `app`, else by its own name (as props.ts reads it). */
function hasEmail(definition: Record<string, any>): boolean {
  return propsOf(definition).some(([name, raw]) => {
    const spec = propSpec(raw);
    return spec.type === "app" && (typeof spec.app === "string" ? spec.app : name) === "email";
  });
}
