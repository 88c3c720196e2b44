// The contract between the service and the sandboxed code runner. The service never evaluates
// user code itself: it sends code and inputs to a runner child process (src/runner) and gets
// back plain data. Sources and workflows (src/runtime/workflow) both use this interface. The
// data it carries is the runner's wire protocol (src/runner/protocol), re-exported here so the
// domain names one module for everything about running code.
export type {
  CodeOrigin,
  ComponentMetadata,
  ConfigurableProp,
  ConfigureRequest,
  DirChanges,
  EmitRecord,
  ExecuteRequest,
  ExecuteResult,
  ExecutionFailure,
  HttpResponseRecord,
  LogRecord,
  PackageEntry,
  PropOptions,
  PropOptionsRequest,
  RunLimits,
} from "../runner/protocol/component-execution.js";
import type {
  CodeOrigin,
  ComponentMetadata,
  ConfigurableProp,
  ConfigureRequest,
  PropOptions,
  PropOptionsRequest,
  ExecuteRequest,
  ExecuteResult,
  HttpResponseRecord,
} from "../runner/protocol/component-execution.js";
import type { RunnableStep, StepsCheck, WorkflowStepRequest, WorkflowStepResult } from "../runner/protocol/workflow-execution.js";

export interface CodeRunner {
  /** Evaluates code in a runner and returns its metadata; a ServiceError VALIDATION on bad code. */
  inspectComponent(input: { userId: string; code: string } & CodeOrigin): Promise<ComponentMetadata>;
  /** The props additionalProps() adds for these configured values; a ServiceError VALIDATION when it fails. */
  reloadProps(input: ConfigureRequest): Promise<ConfigurableProp[]>;
  /** One page of a prop's options; NOT_FOUND for an unknown prop, VALIDATION (naming the prop) when options() fails. */
  propOptions(input: PropOptionsRequest): Promise<PropOptions>;
  /**
   * Runs one entry point. Resolves (never rejects) for failures of user code, which come back
   * in `error`. `onResponse` fires as soon as the code calls this.http.respond, before the
   * execution ends, so an HTTP request can be answered early.
   */
  execute(request: ExecuteRequest, options?: { onResponse?: (response: HttpResponseRecord) => void }): Promise<ExecuteResult>;
  /** Workflows (src/runtime/workflow): checks step code at save time (problems, not throws). */
  checkWorkflowSteps(input: { userId: string; steps: RunnableStep[] }): Promise<StepsCheck>;
  /** Runs one step of a workflow run; like execute(), resolves for failures of user code. */
  executeWorkflowStep(
    request: WorkflowStepRequest,
    options?: { onResponse?: (response: HttpResponseRecord) => void },
  ): Promise<WorkflowStepResult>;
  close(): Promise<void>;
}
