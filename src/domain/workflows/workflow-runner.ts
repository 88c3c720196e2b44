// What workflows need from the code runner (src/runtime): check step code at save time and
// run a workflow's steps. CodeRunner implements both (src/runtime/code-runner.ts).
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type {
  StepProblem,
  WorkflowExecuteRequest,
  WorkflowExecuteResult,
  WorkflowStepCode,
} from "../../runner/protocol/workflow-execution.js";

export interface WorkflowRunner {
  checkWorkflowSteps(input: { userId: string; steps: WorkflowStepCode[] }): Promise<StepProblem[]>;
  executeWorkflow(
    request: WorkflowExecuteRequest,
    options?: { onResponse?: (response: HttpResponseRecord) => void },
  ): Promise<WorkflowExecuteResult>;
}
