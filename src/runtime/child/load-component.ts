// Loads a prepared component module (written by the service into the account's module
// folder, named by code hash) and returns its definition. Node's module cache keeps the
// compiled code per path, so a warm runner loads each code hash once.
import { pathToFileURL } from "node:url";

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

export function requireRun(definition: Record<string, any>): void {
  if (typeof definition.run !== "function") throw new InvalidComponentError("the component has no run() method: a component must define run(event)");
}
