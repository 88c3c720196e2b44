// What workflows need from the code runner (src/runtime): check step code at save time and
// run one step of a run. CodeRunner implements both (src/runtime/code-runner.ts).
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type { StepProblem, WorkflowStepCode, WorkflowStepRequest, WorkflowStepResult } from "../../runner/protocol/workflow-execution.js";

export interface WorkflowRunner {
  checkWorkflowSteps(input: { userId: string; steps: WorkflowStepCode[] }): Promise<StepProblem[]>;
  executeWorkflowStep(
    request: WorkflowStepRequest,
    options?: { onResponse?: (response: HttpResponseRecord) => void },
  ): Promise<WorkflowStepResult>;
}
