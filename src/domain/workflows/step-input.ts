// Steps as a create or update stores them: code steps checked in a runner (which also lists
// the props each declares), action steps bound to the published component they run (a
// registry key at its newest recorded version unless one is given), the props a step's
// additionalProps() adds for its values (code steps and actions alike), and every step's props
// checked against its module's props (step-props.ts).
import type { Actor, Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import type { ComponentMetadata, ConfigurableProp } from "../../runtime/code-runner.js";
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
  const checked = await assertStepsRunnable(input.runner, actor.userId, input.steps);
  const dynamic = new Set(checked.dynamic ?? []);
  const out: WorkflowStepCode[] = [];
  for (const step of input.steps) {
    const next: WorkflowStepCode = { ...step };
    let module: DynamicModule | undefined;
    let declared = checked.props[step.id] ?? [];
    if (step.type === "action") {
      const component = await actionComponent(ctx, actor, step, `step "${step.name}"`);
      next.componentRef = component.id;
      if (step.action !== undefined) next.version = component.version;
      declared = component.metadata.configurable_props;
      module = component;
    } else if (dynamic.has(step.id) && step.code !== undefined) {
      module = codeStepModule(step.id, step.code, declared);
    }
    // A step that configures itself (additionalProps()) gets its added props for these values, as a source does.
    const added = module ? await dynamicStepProps({ ctx, runner: input.runner }, actor, module, step) : [];
    if (added.length > 0) {
      next.extraProps = added;
      declared = [...declared, ...added];
    } else delete next.extraProps;
    next.props = await storeStepProps(ctx, { userId: actor.userId, step, declared, configured: step.props ?? {} });
    out.push(next);
  }
  return out;
}

/** What additionalProps() is asked of: a published action, or a code step's own module. */
type DynamicModule = Pick<SavedComponent, "id" | "code" | "componentUrl" | "files" | "package" | "metadata">;

function codeStepModule(id: string, code: string, declared: ConfigurableProp[]): DynamicModule {
  return {
    id,
    code,
    componentUrl: null,
    files: undefined,
    package: undefined,
    metadata: { additional_props: true, configurable_props: declared } as ComponentMetadata,
  };
}

async function dynamicStepProps(
  deps: { ctx: Ctx; runner: WorkflowRunner },
  actor: Actor,
  module: DynamicModule,
  step: WorkflowStepCode,
): Promise<ConfigurableProp[]> {
  const where = `step "${step.name}"`;
  try {
    return parseDynamicProps(await dynamicPropsFor(deps, actor, module, step.props ?? {}));
  } catch (error) {
    if (error instanceof ServiceError && error.code === "VALIDATION") throw invalid(`${where}: ${error.message}`);
    throw error;
  }
}
