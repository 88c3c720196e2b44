// What workflows need from the code runner (src/runtime): check step code at save time and
// run a workflow's steps. CodeRunner implements both (src/runtime/code-runner.ts).
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type { WorkflowExecuteRequest, WorkflowExecuteResult, RunnableStep, StepsCheck } from "../../runner/protocol/workflow-execution.js";

export interface WorkflowRunner {
  checkWorkflowSteps(input: { userId: string; steps: RunnableStep[] }): Promise<StepsCheck>;
  executeWorkflow(
    request: WorkflowExecuteRequest,
    options?: { onResponse?: (response: HttpResponseRecord) => void },
  ): Promise<WorkflowExecuteResult>;
}
