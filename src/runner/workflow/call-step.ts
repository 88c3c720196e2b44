// The one place a step's definition is loaded and its run() called: how a step becomes
// something to run (its module's default export, and what `this` is bound to) changes here only.
import { stepDefinition, type StepHost, type StepRef } from "./run-steps.js";
import { stepThis } from "./step-component.js";

export async function callStep<S extends StepRef>(
  host: StepHost<S>,
  step: S,
  arg: { steps: Record<string, unknown>; $: unknown },
): Promise<unknown> {
  const definition = stepDefinition(await host.load(step)) as { run?: (arg: unknown) => unknown } | undefined;
  if (typeof definition?.run !== "function") throw new TypeError(`step "${step.name}" has no run({ steps, $ }) method`);
  const self = stepThis(definition, step.props, host.callService, step.extraProps, { steps: arg.steps });
  return definition.run.call(self, arg);
}
