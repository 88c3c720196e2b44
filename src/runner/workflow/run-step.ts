// Runs inside a runner child process: one step of a run, with `steps` as the runs before it
// left them and `$` (export, respond, send, flow, context). What the step asked of the run
// through `$.flow` comes back as data: the service, not the runner, pauses or ends the run.
import type { ExecutionFailure, HttpResponseRecord } from "../protocol/component-execution.js";
import type { EmailRequest, FlowRequest, HttpSendRequest, RunLinks, WorkflowStepResult } from "../protocol/workflow-execution.js";
import { httpSendRequest, MAX_HTTP_SENDS_PER_STEP } from "./http-send.js";
import { toResponseRecord } from "../response-record.js";
import { emitBudget, RUN_LIMITS } from "../run-limits.js";
import { callStep } from "./call-step.js";
import { failureOf, jsonSafe, jsonText, type StepHost, type StepRef } from "./run-steps.js";

export const DEFAULT_SUSPEND_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_MAX_RERUNS = 10;
/** The longest pause a step may ask for: a year. */
const MAX_PAUSE_MS = 365 * 24 * 60 * 60 * 1000;

class FlowExit extends Error {}

export type StepOutcome = Omit<WorkflowStepResult, "logs" | "durationMs">;

export interface StepRun<S extends StepRef> {
  step: S;
  steps: Record<string, unknown>;
  context: Record<string, unknown>;
  links: RunLinks;
}

function pauseMs(value: unknown, what: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_PAUSE_MS)
    throw new TypeError(`${what} needs a number of milliseconds from 0 to ${MAX_PAUSE_MS}`);
  return Math.round(value);
}

export async function runStep<S extends StepRef>(request: StepRun<S>, host: StepHost<S>): Promise<StepOutcome> {
  const emits: unknown[] = [];
  const emails: EmailRequest[] = [];
  const httpRequests: HttpSendRequest[] = [];
  const exports: Record<string, unknown> = {};
  let response: HttpResponseRecord | undefined;
  let flow: FlowRequest | undefined;
  let error: ExecutionFailure | undefined;
  let returnValue: unknown;

  const spend = emitBudget(RUN_LIMITS);
  const emit = (payload: unknown) => {
    // Measured on the JSON it travels as, made once.
    const text = jsonText(payload) ?? "null";
    spend(Buffer.byteLength(text));
    emits.push(JSON.parse(text));
  };
  const links = () => ({ ...request.links });
  const $ = {
    context: request.context,
    export(name: string, value: unknown) {
      if (typeof name !== "string" || name === "" || name === "$return_value")
        throw new TypeError("$.export needs a name other than $return_value");
      exports[name] = value;
    },
    flow: {
      exit(reason?: unknown) {
        throw new FlowExit(reason === undefined ? "exit" : String(reason));
      },
      delay(ms: unknown) {
        flow = { kind: "delay", ms: pauseMs(ms, "$.flow.delay") };
        return links();
      },
      suspend(timeoutMs?: unknown) {
        flow = { kind: "suspend", timeoutMs: pauseMs(timeoutMs ?? undefined, "$.flow.suspend", DEFAULT_SUSPEND_MS) };
        return links();
      },
      rerun(delayMs: unknown, context?: unknown, maxReruns?: unknown) {
        const max = maxReruns === undefined || maxReruns === null ? DEFAULT_MAX_RERUNS : Number(maxReruns);
        if (!Number.isInteger(max) || max < 0) throw new TypeError("$.flow.rerun's maxReruns must be a whole number");
        flow = { kind: "rerun", delayMs: pauseMs(delayMs, "$.flow.rerun"), context: jsonSafe(context) ?? null, maxReruns: max };
        return links();
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
      http(request: unknown) {
        if (httpRequests.length >= MAX_HTTP_SENDS_PER_STEP)
          throw new TypeError(`a step may call $.send.http at most ${MAX_HTTP_SENDS_PER_STEP} times`);
        httpRequests.push(httpSendRequest(request));
      },
    },
  };
  const previousSend = (globalThis as any).$send;
  (globalThis as any).$send = { emit };
  try {
    returnValue = await callStep(host, request.step, { steps: request.steps, $ });
  } catch (thrown) {
    if (thrown instanceof FlowExit) flow = { kind: "exit", reason: thrown.message };
    else error = failureOf(thrown);
  } finally {
    (globalThis as any).$send = previousSend;
  }
  return {
    emits,
    emails,
    ...(httpRequests.length > 0 ? { httpRequests } : {}),
    ...(response ? { response } : {}),
    exports: jsonSafe(exports) as Record<string, unknown>,
    ...(error ? { error } : { returnValue: jsonSafe(returnValue) }),
    ...(flow && !error ? { flow } : {}),
  };
}
