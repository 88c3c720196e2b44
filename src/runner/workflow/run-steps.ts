// Runs inside a runner child process: loads each step module and calls its run({ steps, $ })
// in order. The service only ever receives the plain-data result.
import type { ExecutionFailure, HttpResponseRecord } from "../protocol/component-execution.js";
import type { EmailRequest, StepProblem, WorkflowExecuteResult } from "../protocol/workflow-execution.js";
import { toResponseRecord } from "../response-record.js";
import { cleanStack } from "../clean-stack.js";
import { emitBudget, RUN_LIMITS } from "../run-limits.js";
import { stepThis } from "./step-component.js";

/** What the runner gives the step executor: its module loader and a way to answer early. */
export interface StepRef {
  id: string;
  name: string;
  /** Configured prop values (step-component.ts binds them to `this`). */
  props?: Record<string, unknown>;
}

export interface StepHost<S extends StepRef> {
  /** Evaluates a step's module (ESM or CommonJS) and returns its namespace or exports. */
  load(step: S): Promise<unknown>;
  /** Forwards `$.respond` to the service at once, before the run ends. */
  respond(response: HttpResponseRecord): void;
  /** Tells the service which step is running, so a kill can name it. */
  stepStarted?(stepId: string): void;
}

class FlowExit extends Error {}

/** The object holding `run`, whether the module used `export default` or `module.exports`. */
export function stepDefinition(loaded: unknown): { run?: unknown } | undefined {
  let value: any = loaded;
  for (let i = 0; i < 2 && value && typeof value === "object" && "default" in value && value.default; i++) value = value.default;
  return value && typeof value === "object" ? value : undefined;
}

export async function checkSteps<S extends StepRef>(steps: S[], host: StepHost<S>): Promise<StepProblem[]> {
  const problems: StepProblem[] = [];
  for (const step of steps) {
    try {
      const definition = stepDefinition(await host.load(step));
      if (typeof definition?.run !== "function") {
        problems.push({
          stepId: step.id,
          stepName: step.name,
          message: "the default export must be an object with an async run({ steps, $ }) method",
        });
      }
    } catch (error) {
      problems.push({ stepId: step.id, stepName: step.name, message: describe(error) });
    }
  }
  return problems;
}

export type StepsOutcome = Omit<WorkflowExecuteResult, "logs" | "durationMs">;

export async function runSteps<S extends StepRef>(
  request: { steps: S[]; event: unknown; context: Record<string, unknown> },
  host: StepHost<S>,
): Promise<StepsOutcome> {
  const emits: unknown[] = [];
  const emails: EmailRequest[] = [];
  const stepResults: WorkflowExecuteResult["stepResults"] = [];
  let response: HttpResponseRecord | undefined;
  let exited = false;
  let error: ExecutionFailure | undefined;
  let failedStepId: string | undefined;

  const spend = emitBudget(RUN_LIMITS);
  const emit = (payload: unknown) => {
    // Measured on the JSON it travels as, made once.
    const text = jsonText(payload) ?? "null";
    spend(Buffer.byteLength(text));
    emits.push(JSON.parse(text));
  };
  const steps: Record<string, unknown> = { trigger: { event: request.event, context: request.context } };
  const previousSend = (globalThis as any).$send;
  (globalThis as any).$send = { emit };
  try {
    for (const step of request.steps) {
      host.stepStarted?.(step.id);
      const exports: Record<string, unknown> = {};
      const $ = {
        export(name: string, value: unknown) {
          if (typeof name !== "string" || name === "" || name === "$return_value")
            throw new TypeError("$.export needs a name other than $return_value");
          exports[name] = value;
        },
        flow: {
          exit(reason?: string) {
            throw new FlowExit(reason ?? "exit");
          },
        },
        respond(options: unknown) {
          if (response) return;
          response = toResponseRecord(options, "$.respond");
          host.respond(response);
        },
        send: {
          emit,
          email(message: { subject?: unknown; text?: unknown }) {
            if (!message || typeof message !== "object") throw new TypeError("$.send.email needs { subject, text }");
            emails.push({ subject: String(message.subject ?? "(no subject)").slice(0, 998), text: String(message.text ?? "") });
          },
        },
      };
      try {
        const definition = stepDefinition(await host.load(step)) as { run?: (arg: unknown) => unknown } | undefined;
        if (typeof definition?.run !== "function") throw new TypeError(`step "${step.name}" has no run({ steps, $ }) method`);
        const returnValue = await definition.run.call(stepThis(definition, step.props), { steps, $ });
        steps[step.name] = { ...exports, $return_value: returnValue };
        stepResults.push({
          id: step.id,
          name: step.name,
          returnValue: jsonSafe(returnValue),
          exports: jsonSafe(exports) as Record<string, unknown>,
        });
      } catch (thrown) {
        if (thrown instanceof FlowExit) {
          steps[step.name] = { ...exports };
          stepResults.push({ id: step.id, name: step.name, returnValue: undefined, exports: jsonSafe(exports) as Record<string, unknown> });
          exited = true;
          break;
        }
        error = failureOf(thrown);
        failedStepId = step.id;
        break;
      }
    }
  } finally {
    (globalThis as any).$send = previousSend;
  }
  return { emits, emails, response, stepResults, exited, failedStepId, error };
}

function failureOf(thrown: unknown): ExecutionFailure {
  if (thrown instanceof Error) {
    return {
      kind: "error",
      name: thrown.name || "Error",
      message: thrown.message,
      stack: thrown.stack ? cleanStack(thrown.stack) : `${thrown.name}: ${thrown.message}`,
    };
  }
  const message = typeof thrown === "string" ? thrown : safeStringify(thrown);
  return { kind: "error", name: "Error", message, stack: `Error: ${message}` };
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Values cross to the service as JSON; what JSON cannot carry becomes its nearest JSON form. */
function jsonSafe(value: unknown): unknown {
  const text = jsonText(value);
  return text === undefined ? undefined : JSON.parse(text);
}

/** The JSON text of a value (of its text form when it has none), undefined for undefined. */
function jsonText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(String(value));
  }
}
