// Handler "inspect": a component's metadata, evaluated here in the runner, never in the service.
import type { ComponentMetadata } from "./protocol/component-execution.js";
import { loadComponent, requireRun } from "./load-component.js";
import { configurableProp } from "./props.js";

const HOOKS = ["deploy", "activate", "deactivate"] as const;
const DEDUPE = ["unique", "greatest", "last"];

export async function inspect(payload: { entryPath: string }): Promise<ComponentMetadata> {
  const definition = await loadComponent(payload.entryPath);
  requireRun(definition);
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
  const props = definition.props && typeof definition.props === "object" ? (definition.props as Record<string, unknown>) : {};
  const key = text(definition.key);
  return {
    key,
    name: text(definition.name) ?? key ?? "Untitled component",
    version: text(definition.version) ?? "0.0.1",
    description: text(definition.description),
    type: text(definition.type) ?? "source",
    dedupe: DEDUPE.includes(definition.dedupe) ? definition.dedupe : null,
    configurable_props: Object.entries(props).map(([name, raw]) => configurableProp(name, raw)),
    hooks: HOOKS.filter((hook) => typeof definition.hooks?.[hook] === "function"),
    ...(typeof definition.additionalProps === "function" ? { additional_props: true } : {}),
  };
}
