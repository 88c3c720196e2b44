// Step input: names, ids and code size checked here; the code itself is checked in the runner.
import { invalid } from "../../lib/errors.js";
import { randomString } from "../../lib/ids.js";
import type { WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";
import type { WorkflowRunner } from "./workflow-runner.js";

export interface StepInput {
  id?: string;
  name?: string;
  code: string;
}

export const MAX_STEPS = 50;
export const MAX_STEP_CODE_BYTES = 256 * 1024;
const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export const newStepId = () => `c_${randomString(16)}`;

/** Gives each step a name and an id; a step keeps its id when the input names one it had. */
export function normalizeSteps(input: StepInput[], previous: WorkflowStepCode[] = []): WorkflowStepCode[] {
  if (!Array.isArray(input) || input.length === 0) throw invalid("steps must be a non-empty array of { name?, code }");
  if (input.length > MAX_STEPS) throw invalid(`a workflow has at most ${MAX_STEPS} steps`);
  const known = new Set(previous.map((s) => s.id));
  const names = new Set<string>();
  return input.map((step, index) => {
    const where = `steps[${index}]`;
    if (typeof step.code !== "string" || step.code.trim() === "") throw invalid(`${where}.code is required`);
    if (Buffer.byteLength(step.code) > MAX_STEP_CODE_BYTES) throw invalid(`${where}.code is larger than ${MAX_STEP_CODE_BYTES / 1024} KB`);
    const name = step.name ?? `step_${index + 1}`;
    if (!STEP_NAME.test(name))
      throw invalid(`${where}.name must start with a letter or _ and hold only letters, digits and _ (it is used as steps.<name>)`);
    if (name === "trigger") throw invalid(`${where}.name "trigger" is reserved for steps.trigger`);
    if (names.has(name)) throw invalid(`${where}.name "${name}" is used by another step`);
    names.add(name);
    if (step.id !== undefined && !known.has(step.id)) throw invalid(`${where}.id "${step.id}" is not a step of this workflow`);
    return { id: step.id ?? newStepId(), name, code: step.code };
  });
}

/** Syntax and shape of every step, evaluated in the runner; the first problem is a 400. */
export async function assertStepsRunnable(runner: WorkflowRunner, userId: string, steps: WorkflowStepCode[]): Promise<void> {
  const problems = await runner.checkWorkflowSteps({ userId, steps });
  const first = problems[0];
  if (first) throw invalid(`step "${first.stepName}": ${first.message}`);
}

/**
 * Whether a run must be awaited to answer its HTTP trigger. Decided from the code at save time:
 * a workflow whose steps call `.respond(` answers with `$.respond`; others answer 200 at once.
 */
export function usesCustomResponse(steps: WorkflowStepCode[]): boolean {
  return steps.some((step) => /\.respond\s*\(/.test(step.code));
}
