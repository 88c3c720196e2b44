import type { Config } from "../../config.js";
import { toUnixSeconds } from "../../lib/clock.js";
import type { WorkflowsTable } from "../../store/schema.js";
import type { WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";
import { triggerView, type TriggerView } from "./triggers/trigger-view.js";
import { stepView, type StepView } from "./step-view.js";

export interface WorkflowView {
  id: string;
  name: string;
  trigger: TriggerView;
  steps: StepView[];
  active: boolean;
  endpoint_url: string;
  /** True for the account's global error workflow (error-workflow.ts). */
  global_error_workflow: boolean;
  created_at: number;
  updated_at: number;
}

export function endpointUrl(config: Config, endpointKey: string): string {
  return `${config.publicUrl}/w/${endpointKey}`;
}

export function parseSteps(row: Pick<WorkflowsTable, "steps">): WorkflowStepCode[] {
  return JSON.parse(row.steps) as WorkflowStepCode[];
}

export function workflowView(config: Config, row: WorkflowsTable): WorkflowView {
  return {
    id: row.id,
    name: row.name,
    trigger: triggerView(config, row.trigger, endpointUrl(config, row.endpoint_key)),
    steps: parseSteps(row).map(stepView),
    active: row.active === 1,
    endpoint_url: endpointUrl(config, row.endpoint_key),
    global_error_workflow: row.is_error_workflow === 1,
    created_at: toUnixSeconds(row.created_at),
    updated_at: toUnixSeconds(row.updated_at),
  };
}
