// What workflows need from the code runner (src/runtime): check step code at save time and
// run one step of a run, and run an action's additionalProps() at save. CodeRunner implements
// them (src/runtime/code-runner.ts).
import type { CodeRunner, HttpResponseRecord } from "../../runtime/code-runner.js";
import type { RunnableStep, StepsCheck, WorkflowStepRequest, WorkflowStepResult } from "../../runner/protocol/workflow-execution.js";

export interface WorkflowRunner {
  reloadProps: CodeRunner["reloadProps"];
  checkWorkflowSteps(input: { userId: string; steps: RunnableStep[] }): Promise<StepsCheck>;
  executeWorkflowStep(
    request: WorkflowStepRequest,
    options?: { onResponse?: (response: HttpResponseRecord) => void },
  ): Promise<WorkflowStepResult>;
}
