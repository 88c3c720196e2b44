// What workflows need from the code runner (src/runtime): check step code at save time and
// run one step of a run. CodeRunner implements both (src/runtime/code-runner.ts).
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type { RunnableStep, StepsCheck, WorkflowStepRequest, WorkflowStepResult } from "../../runner/protocol/workflow-execution.js";

export interface WorkflowRunner {
  checkWorkflowSteps(input: { userId: string; steps: RunnableStep[] }): Promise<StepsCheck>;
  executeWorkflowStep(
    request: WorkflowStepRequest,
    options?: { onResponse?: (response: HttpResponseRecord) => void },
  ): Promise<WorkflowStepResult>;
}
