// The service side of workflow runs: writes each step's module like a component's (npm
// imports, SDK helpers) and asks an account's runner to check them or run one. Implements the
// workflow part of CodeRunner on the runtime's process pool and module store.
import { ServiceError } from "../../lib/errors.js";
import type { ExecutionFailure, HttpResponseRecord } from "../code-runner.js";
import type { ModuleStore } from "../modules/module-store.js";
import type { ProcessPool } from "../process-pool.js";
import type {
  PreparedStep,
  RunnableStep,
  StepsCheck,
  WorkflowStepRequest,
  WorkflowStepResult,
} from "../../runner/protocol/workflow-execution.js";

export interface WorkflowRunnerDeps {
  pool: ProcessPool;
  modules: ModuleStore;
  /** The default wall-clock limit of a run (config.runTimeoutSeconds). */
  timeoutMs: number;
}

type Prepared = { ok: true; steps: PreparedStep[] } | { ok: false; step: RunnableStep; message: string };

async function prepareSteps(modules: ModuleStore, userId: string, steps: RunnableStep[]): Promise<Prepared> {
  const prepared: PreparedStep[] = [];
  for (const step of steps) {
    try {
      // An action's module comes with its origin (registry package, URL, files), as a source's does.
      const { id, name, props, extraProps, ...module } = step;
      const entryPath = await modules.prepare({ userId, ...module });
      prepared.push({ id, name, entryPath, ...(props ? { props } : {}), ...(extraProps?.length ? { extraProps } : {}) });
    } catch (error) {
      // A package that cannot be had or an import that cannot be resolved: bad code, not a fault.
      if (error instanceof ServiceError && error.code === "VALIDATION") return { ok: false, step, message: error.message };
      throw error;
    }
  }
  return { ok: true, steps: prepared };
}

export async function checkWorkflowSteps(deps: WorkflowRunnerDeps, input: { userId: string; steps: RunnableStep[] }): Promise<StepsCheck> {
  const prepared = await prepareSteps(deps.modules, input.userId, input.steps);
  if (!prepared.ok) return { problems: [{ stepId: prepared.step.id, stepName: prepared.step.name, message: prepared.message }], props: {} };
  const outcome = await deps.pool.run(
    input.userId,
    { type: "workflow.check", payload: { steps: prepared.steps } },
    { timeoutMs: deps.timeoutMs },
  );
  if (outcome.ok) return outcome.result as StepsCheck;
  const first = input.steps[0]!;
  return {
    problems: [{ stepId: first.id, stepName: first.name, message: `loading the steps failed: ${outcome.failure.message}` }],
    props: {},
  };
}

export async function executeWorkflowStep(
  deps: WorkflowRunnerDeps,
  request: WorkflowStepRequest,
  options: { onResponse?: (response: HttpResponseRecord) => void } = {},
): Promise<WorkflowStepResult> {
  const started = performance.now();
  const empty = { emits: [], logs: [], emails: [], exports: {} };
  const prepared = await prepareSteps(deps.modules, request.userId, [request.step]);
  if (!prepared.ok) {
    const error: ExecutionFailure = {
      kind: "error",
      name: "ImportError",
      message: prepared.message,
      stack: `ImportError: ${prepared.message}`,
    };
    return { ...empty, error, durationMs: performance.now() - started };
  }
  let response: HttpResponseRecord | undefined;
  const outcome = await deps.pool.run(
    request.userId,
    {
      type: "workflow.step",
      payload: { step: prepared.steps[0], steps: request.steps, context: request.context, links: request.links },
    },
    {
      timeoutMs: request.timeoutMs ?? deps.timeoutMs,
      onEvent: (event) => {
        const data = event as { response?: HttpResponseRecord };
        if (data.response && !response) {
          response = data.response;
          options.onResponse?.(data.response);
        }
      },
    },
  );
  const durationMs = performance.now() - started;
  if (outcome.ok) return { ...(outcome.result as Omit<WorkflowStepResult, "durationMs">), durationMs };
  // Killed (timeout, memory) or crashed: what the step did is lost with its runner.
  return { ...empty, ...(response ? { response } : {}), error: outcome.failure, durationMs };
}
