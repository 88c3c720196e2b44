// A step as the API shows it: {id, name, type: "code"|"action", code | action+version |
// component_id, props}. Props are as stored (app props as {authProvisionId}): never credentials.
import type { WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";

export interface StepView {
  id: string;
  name: string;
  type: "code" | "action";
  code?: string;
  action?: string;
  version?: string;
  component_id?: string;
  props: Record<string, unknown>;
}

export function stepView(step: WorkflowStepCode): StepView {
  const base = { id: step.id, name: step.name };
  const props = step.props ?? {};
  if (step.type === "action") {
    return step.action !== undefined
      ? { ...base, type: "action", action: step.action, ...(step.version ? { version: step.version } : {}), props }
      : { ...base, type: "action", component_id: step.component_id, props };
  }
  return { ...base, type: "code", code: step.code ?? "", props };
}
