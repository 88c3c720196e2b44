// A source's dynamic props (Pipedream's additionalProps()): run in the account's runner at
// save with the configured values, and again when a prop marked `reloadProps` changes (or the
// code does); kept on the source (sources.dynamic_props) and read beside the component's own
// props wherever a source's props are: checks, views, timers, HTTP endpoints, runs.
import type { Actor, Ctx } from "../context.js";
import type { SavedComponent } from "../components/component.js";
import { withAppAuth } from "../accounts/app-props.js";
import type { CodeRunner, ComponentMetadata, ConfigurableProp } from "../../runtime/code-runner.js";

/** The component's metadata with the props its additionalProps() added for one source. */
export function withDynamicProps(metadata: ComponentMetadata, dynamicProps: string | null | undefined): ComponentMetadata {
  const added = parseDynamicProps(dynamicProps);
  if (added.length === 0) return metadata;
  const own = new Set(metadata.configurable_props.map((prop) => prop.name));
  return { ...metadata, configurable_props: [...metadata.configurable_props, ...added.filter((prop) => !own.has(prop.name))] };
}

export function parseDynamicProps(dynamicProps: string | null | undefined): ConfigurableProp[] {
  if (!dynamicProps) return [];
  try {
    const parsed = JSON.parse(dynamicProps);
    return Array.isArray(parsed) ? (parsed as ConfigurableProp[]) : [];
  } catch {
    return [];
  }
}

/** What the source had before this save, to reuse its dynamic props when nothing they depend on changed. */
export interface PreviousProps {
  componentId: string;
  configured: Record<string, unknown>;
  dynamicProps: string | null;
}

/**
 * The JSON of the source's dynamic props for these configured values (null when the component
 * has no additionalProps()): the previous ones when the code and every `reloadProps` prop are
 * unchanged, else what additionalProps() answers now. A failure is a 400 saying why.
 */
export async function dynamicPropsFor(
  deps: { ctx: Ctx; runner: Pick<CodeRunner, "reloadProps"> },
  actor: Actor,
  component: Pick<SavedComponent, "id" | "code" | "componentUrl" | "files" | "package" | "metadata">,
  configured: Record<string, unknown>,
  previous?: PreviousProps,
): Promise<string | null> {
  const { metadata } = component;
  if (!metadata.additional_props) return null;
  if (previous && previous.dynamicProps !== null && previous.componentId === component.id) {
    const reloading = metadata.configurable_props.filter((prop) => prop.reloadProps);
    const same = (name: string) => JSON.stringify(previous.configured[name]) === JSON.stringify(configured[name]);
    if (reloading.every((prop) => same(prop.name))) return previous.dynamicProps;
  }
  const values = await configuringValues(deps.ctx, actor.userId, metadata, configured);
  const added = await deps.runner.reloadProps({
    userId: actor.userId,
    code: component.code,
    codeUrl: component.componentUrl ?? undefined,
    files: component.files,
    package: component.package,
    props: values,
  });
  return JSON.stringify(added);
}

/** The values code sees while it is configured: defaults, then what was configured, app props with their `$auth`. */
export async function configuringValues(
  ctx: Ctx,
  userId: string,
  metadata: ComponentMetadata,
  configured: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const prop of metadata.configurable_props) if (prop.default !== undefined) values[prop.name] = prop.default;
  Object.assign(values, configured);
  return (await withAppAuth(ctx, userId, metadata, values)).props;
}
