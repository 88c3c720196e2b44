// Steps as a create or update stores them: code steps checked in a runner (which also lists
// the props each declares), action steps bound to the published component they run (a
// registry key at its newest recorded version unless one is given), and every step's props
// checked against its module's props (step-props.ts).
import type { Actor, Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import type { ConfigurableProp } from "../../runtime/code-runner.js";
import type { WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";
import { actionComponent } from "./step-action.js";
import { dynamicPropsFor, parseDynamicProps } from "../sources/dynamic-props.js";
import type { SavedComponent } from "../components/component.js";
import { storeStepProps } from "./step-props.js";
import { assertStepsRunnable } from "./steps.js";
import type { WorkflowRunner } from "./workflow-runner.js";

export async function checkedSteps(input: {
  ctx: Ctx;
  runner: WorkflowRunner;
  actor: Actor;
  steps: WorkflowStepCode[];
}): Promise<WorkflowStepCode[]> {
  const { ctx, actor } = input;
  const declared: Record<string, ConfigurableProp[]> = await assertStepsRunnable(input.runner, actor.userId, input.steps);
  const out: WorkflowStepCode[] = [];
  for (const step of input.steps) {
    const next: WorkflowStepCode = { ...step };
    if (step.type === "action") {
      const component = await actionComponent(ctx, actor, step, `step "${step.name}"`);
      next.componentRef = component.id;
      if (step.action !== undefined) next.version = component.version;
      declared[step.id] = component.metadata.configurable_props;
      // An action that configures itself (additionalProps()) gets its added props for these values, as a source does.
      const added = await actionDynamicProps({ ctx, runner: input.runner }, actor, component, step);
      if (added.length > 0) {
        next.extraProps = added;
        declared[step.id] = [...component.metadata.configurable_props, ...added];
      } else delete next.extraProps;
    }
    next.props = await storeStepProps(ctx, {
      userId: actor.userId,
      step,
      declared: declared[step.id] ?? [],
      configured: step.props ?? {},
    });
    out.push(next);
  }
  return out;
}

async function actionDynamicProps(
  deps: { ctx: Ctx; runner: WorkflowRunner },
  actor: Actor,
  component: SavedComponent,
  step: WorkflowStepCode,
): Promise<ConfigurableProp[]> {
  const where = `step "${step.name}"`;
  try {
    return parseDynamicProps(await dynamicPropsFor(deps, actor, component, step.props ?? {}));
  } catch (error) {
    if (error instanceof ServiceError && error.code === "VALIDATION") throw invalid(`${where}: ${error.message}`);
    throw error;
  }
}
