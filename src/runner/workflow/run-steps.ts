// Runs inside a runner child process: checks step modules at save time, and holds what running
// one step (run-step.ts) shares with the check: the host a step runs in and how results and
// failures become plain data for the service.
import type { ExecutionFailure, HttpResponseRecord } from "../protocol/component-execution.js";
import type { StepProblem } from "../protocol/workflow-execution.js";
import { cleanStack } from "../clean-stack.js";
import type { CallService } from "../data-store-prop.js";

/** What the runner gives the step executor: its module loader and a way to answer early. */
export interface StepRef {
  id: string;
  name: string;
  /** Configured prop values (step-component.ts binds them to `this`). */
  props?: Record<string, unknown>;
  /** Props the step's additionalProps() added at save. */
  extraProps?: Array<{ name: string }>;
}

export interface StepHost<S extends StepRef> {
  /** Evaluates a step's module (ESM or CommonJS) and returns its namespace or exports. */
  load(step: S): Promise<unknown>;
  /** Forwards `$.respond` to the service at once, before the run ends. */
  respond(response: HttpResponseRecord): void;
  /** Asks the service during the step (data store props); absent while steps are only checked. */
  callService?: CallService;
}

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

export function failureOf(thrown: unknown): ExecutionFailure {
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
export function jsonSafe(value: unknown): unknown {
  const text = jsonText(value);
  return text === undefined ? undefined : JSON.parse(text);
}

/** The JSON text of a value (of its text form when it has none), undefined for undefined. */
export function jsonText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(String(value));
  }
}
