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
    throw new InvalidComponentError(`the component code could not be loaded: ${e?.name ?? "Error"}: ${e?.message ?? String(error)}`, { cause: error });
  }
  let definition = mod.default;
  // CommonJS that was transpiled from ESM keeps the component on `.default`.
  if (definition && typeof definition === "object" && typeof definition.run !== "function" && definition.default && typeof definition.default === "object") {
    definition = definition.default;
  }
  if (!definition || typeof definition !== "object") {
    throw new InvalidComponentError("the component code must export an object (export default {…} or module.exports = {…})");
  }
  return definition;
}

/** A timer source may leave run() out: it then emits each timer event as it is. */
export function requireRun(definition: Record<string, any>): void {
  if (typeof definition.run === "function" || hasTimer(definition)) return;
  throw new InvalidComponentError("the component has no run() method: a component must define run(event) (only a timer source may leave it out)");
}

export function hasTimer(definition: Record<string, any>): boolean {
  const props = definition.props && typeof definition.props === "object" ? Object.values(definition.props as Record<string, unknown>) : [];
  return props.some((raw) => propSpec(raw).type === "$.interface.timer");
}
