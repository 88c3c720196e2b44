// The service's answers to calls a runner makes during an execution (runner/service-calls.ts is
// the runner's end). What may be called is a table the composition root builds (main.ts), keyed
// by method name; each handler gets the account the runner belongs to, never one the runner
// names, so a call can only reach that account's things. Calls of one runner run at most
// MAX_CONCURRENT at a time, the rest wait in order, up to MAX_QUEUED; past that the call is
// refused. An error of the service (ServiceError) is answered with its code and message; any
// other fault is answered without its details.
import { ServiceError } from "../lib/errors.js";
import type { ReplyMessage } from "../runner/protocol/messages.js";

/** One method a runner may call: `userId` is the account of the runner. */
export type ServiceCallHandler = (userId: string, args: unknown) => Promise<unknown>;
export type ServiceCallTable = Record<string, ServiceCallHandler>;

const MAX_CONCURRENT = 8;
const MAX_QUEUED = 10_000;

export interface RunnerCallGate {
  /** Answers a call of the runner through `reply`, now or once its turn comes. */
  take(call: { call: number; method: string; args: unknown }, reply: (message: ReplyMessage) => void): void;
}

/** One gate per runner; `userId` is the account the runner runs code of. */
export function createRunnerCallGate(table: ServiceCallTable, userId: string, onFault?: (error: unknown) => void): RunnerCallGate {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    running--;
    waiting.shift()?.();
  };
  return {
    take({ call, method, args }, reply) {
      const handler = Object.hasOwn(table, method) ? table[method] : undefined;
      if (!handler)
        return reply({ type: "reply", call, ok: false, error: { code: "VALIDATION", message: `unknown service call ${method}` } });
      if (waiting.length >= MAX_QUEUED)
        return reply({
          type: "reply",
          call,
          ok: false,
          error: { code: "LIMIT_EXCEEDED", message: `over ${MAX_QUEUED} calls to the service are waiting; await some before making more` },
        });
      const start = () => {
        running++;
        handler(userId, args)
          .then(
            (result) => reply({ type: "reply", call, ok: true, result: result ?? null }),
            (error: unknown) => {
              if (error instanceof ServiceError)
                reply({ type: "reply", call, ok: false, error: { code: error.code, message: error.message } });
              else {
                onFault?.(error);
                reply({ type: "reply", call, ok: false, error: { code: "INTERNAL", message: "the service failed to answer the call" } });
              }
            },
          )
          .finally(next);
      };
      if (running < MAX_CONCURRENT) start();
      else waiting.push(start);
    },
  };
}
