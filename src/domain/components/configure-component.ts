// What a props form asks while a component is configured (DESIGN §11 "Prop options"): one page
// of a prop's options, and the props with those additionalProps() adds for the values so far.
// Static options lists are answered from the metadata; code runs in the account's runner.
import type { Actor, Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import type { CodeRunner, ConfigurableProp, PropOptions } from "../../runtime/code-runner.js";
import { configuringValues } from "../sources/dynamic-props.js";
import type { SavedComponent } from "./component.js";

export interface ConfigureInput {
  configured_props?: Record<string, unknown>;
}

export interface PropOptionsInput extends ConfigureInput {
  prevContext?: unknown;
  query?: string;
  page?: number;
}

interface ConfigureDeps {
  ctx: Ctx;
  runner: CodeRunner;
  actor: Actor;
  component: SavedComponent;
}

function origin(component: SavedComponent) {
  return {
    code: component.code,
    codeUrl: component.componentUrl ?? undefined,
    files: component.files,
    package: component.package,
  };
}

export async function componentPropOptions(deps: ConfigureDeps & { prop: string; input: PropOptionsInput }): Promise<PropOptions> {
  const { ctx, runner, actor, component, prop, input } = deps;
  const { metadata } = component;
  const known = metadata.configurable_props.find((candidate) => candidate.name === prop);
  if (known && !known.remoteOptions) {
    if (Array.isArray(known.options)) return { options: known.options, context: null };
    throw invalid(`prop "${prop}" has no options`);
  }
  if (!known && !metadata.additional_props) throw new ServiceError("NOT_FOUND", `the component has no prop "${prop}"`);
  return runner.propOptions({
    userId: actor.userId,
    ...origin(component),
    props: await configuringValues(ctx, actor.userId, metadata, input.configured_props ?? {}),
    prop,
    ...(input.prevContext !== undefined ? { prevContext: input.prevContext } : {}),
    ...(input.query !== undefined ? { query: input.query } : {}),
    ...(input.page !== undefined ? { page: input.page } : {}),
  });
}

/** The component's props followed by those its additionalProps() adds for these values. */
export async function reloadComponentProps(deps: ConfigureDeps & { input: ConfigureInput }): Promise<ConfigurableProp[]> {
  const { ctx, runner, actor, component, input } = deps;
  const { metadata } = component;
  if (!metadata.additional_props) return metadata.configurable_props;
  const added = await runner.reloadProps({
    userId: actor.userId,
    ...origin(component),
    props: await configuringValues(ctx, actor.userId, metadata, input.configured_props ?? {}),
  });
  return [...metadata.configurable_props, ...added];
}
