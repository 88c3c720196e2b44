// Step input: names, ids, which kind of step and code size checked here; the code itself is
// checked in the runner, an action's component and every step's props in step-input.ts.
import { invalid } from "../../lib/errors.js";
import { randomString } from "../../lib/ids.js";
import type { StepsCheck, WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";
import type { WorkflowRunner } from "./workflow-runner.js";

export interface StepInput {
  id?: string;
  name?: string;
  code?: string;
  /** A published action's registry key, and the version to run (the newest recorded when absent). */
  action?: string;
  version?: string;
  /** An action the account saved with POST /v1/components. */
  component_id?: string;
  props?: Record<string, unknown>;
}

export const MAX_STEPS = 50;
export const MAX_STEP_CODE_BYTES = 256 * 1024;
const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export const newStepId = () => `c_${randomString(16)}`;

/** Gives each step a name and an id; a step keeps its id when the input names one it had. */
export function normalizeSteps(input: StepInput[], previous: WorkflowStepCode[] = []): WorkflowStepCode[] {
  if (!Array.isArray(input) || input.length === 0)
    throw invalid("steps must be a non-empty array of { name?, code, props? } or { name?, action | component_id, version?, props? }");
  if (input.length > MAX_STEPS) throw invalid(`a workflow has at most ${MAX_STEPS} steps`);
  const known = new Set(previous.map((s) => s.id));
  const names = new Set<string>();
  return input.map((step, index) => {
    const where = `steps[${index}]`;
    const kind = stepKind(step, where);
    const name = step.name ?? `step_${index + 1}`;
    if (!STEP_NAME.test(name))
      throw invalid(`${where}.name must start with a letter or _ and hold only letters, digits and _ (it is used as steps.<name>)`);
    if (name === "trigger") throw invalid(`${where}.name "trigger" is reserved for steps.trigger`);
    if (names.has(name)) throw invalid(`${where}.name "${name}" is used by another step`);
    names.add(name);
    if (step.id !== undefined && !known.has(step.id)) throw invalid(`${where}.id "${step.id}" is not a step of this workflow`);
    return { id: step.id ?? newStepId(), name, ...kind };
  });
}

/** The step's kind and what names its module: code, a registry action (with version) or a saved component. */
function stepKind(step: StepInput, where: string): Omit<WorkflowStepCode, "id" | "name"> {
  const given = (["code", "action", "component_id"] as const).filter((field) => step[field] !== undefined);
  if (given.length !== 1) throw invalid(`${where} needs exactly one of code, action or component_id`);
  const props = stepProps(step.props, where);
  if (step.code !== undefined) {
    if (typeof step.code !== "string" || step.code.trim() === "") throw invalid(`${where}.code is required`);
    if (Buffer.byteLength(step.code) > MAX_STEP_CODE_BYTES) throw invalid(`${where}.code is larger than ${MAX_STEP_CODE_BYTES / 1024} KB`);
    if (step.version !== undefined) throw invalid(`${where}.version goes with action, not code`);
    return { type: "code", code: step.code, props };
  }
  if (step.version !== undefined && (typeof step.version !== "string" || step.version === ""))
    throw invalid(`${where}.version must be a version string such as "0.0.1"`);
  if (step.action !== undefined) {
    if (typeof step.action !== "string" || step.action.trim() === "") throw invalid(`${where}.action must be a component key`);
    return { type: "action", action: step.action, ...(step.version ? { version: step.version } : {}), props };
  }
  if (typeof step.component_id !== "string" || !step.component_id.startsWith("sc_"))
    throw invalid(`${where}.component_id must be a saved component's id (sc_…)`);
  if (step.version !== undefined) throw invalid(`${where}.version goes with action, not component_id`);
  return { type: "action", component_id: step.component_id, props };
}

function stepProps(props: unknown, where: string): Record<string, unknown> {
  if (props === undefined || props === null) return {};
  if (typeof props !== "object" || Array.isArray(props)) throw invalid(`${where}.props must be an object of configured prop values`);
  return props as Record<string, unknown>;
}

/** Every code step loads and has run() (checked in the runner; the first problem is a 400); answers the props each declares and which have additionalProps(). */
export async function assertStepsRunnable(
  runner: WorkflowRunner,
  userId: string,
  steps: WorkflowStepCode[],
): Promise<Pick<StepsCheck, "props" | "dynamic">> {
  const code = steps.flatMap((step) => (step.code !== undefined ? [{ id: step.id, name: step.name, code: step.code }] : []));
  if (code.length === 0) return { props: {} };
  const { problems, props, dynamic } = await runner.checkWorkflowSteps({ userId, steps: code });
  const first = problems[0];
  if (first) throw invalid(`step "${first.stepName}": ${first.message}`);
  return { props, dynamic };
}

/**
 * Whether a run must be awaited to answer its HTTP trigger. Decided from the code at save time:
 * a workflow whose steps call `.respond(` answers with `$.respond`; others answer 200 at once.
 */
export function usesCustomResponse(steps: WorkflowStepCode[]): boolean {
  return steps.some((step) => step.code !== undefined && /\.respond\s*\(/.test(step.code));
}
