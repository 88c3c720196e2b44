// "workflow.check": each step module must load and hold run({ steps, $ }); the props each one
// declares come back with the problems, so the service checks the configured values at save,
// and which steps configure themselves (additionalProps()), for the service to ask their added props.
import type { StepsCheck } from "../protocol/workflow-execution.js";
import { configurableProp } from "../props.js";
import { checkSteps, stepDefinition, type StepHost, type StepRef } from "./run-steps.js";

export async function inspectSteps<S extends StepRef>(steps: S[], host: StepHost<S>): Promise<StepsCheck> {
  const problems = await checkSteps(steps, host);
  const props: StepsCheck["props"] = {};
  const dynamic: string[] = [];
  const failed = new Set(problems.map((problem) => problem.stepId));
  for (const step of steps) {
    if (failed.has(step.id)) continue;
    const definition = stepDefinition(await host.load(step)) as { props?: unknown; additionalProps?: unknown } | undefined;
    if (typeof definition?.additionalProps === "function") dynamic.push(step.id);
    const declared = definition?.props && typeof definition.props === "object" ? (definition.props as Record<string, unknown>) : {};
    props[step.id] = Object.entries(declared).map(([name, raw]) => configurableProp(name, raw));
  }
  return { problems, props, dynamic };
}
