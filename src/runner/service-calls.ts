// Calls from the runner to the service during an execution: each is sent with a number and
// settled by the service's reply of that number. A reply for a call nobody waits for (its
// execution gave up on it) is dropped.
import type { ChildMessage, ReplyMessage } from "./protocol/messages.js";

/** An error the service answered a call with; `code` is one of the service's error codes. */
export class ServiceCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ServiceCallError";
  }
}

export interface ServiceCalls {
  call(executionId: number, method: string, args: unknown): Promise<unknown>;
  settle(reply: ReplyMessage): void;
}

export function createServiceCalls(send: (message: ChildMessage) => void): ServiceCalls {
  let next = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  return {
    call(executionId, method, args) {
      return new Promise((resolve, reject) => {
        const call = next++;
        pending.set(call, { resolve, reject });
        send({ id: executionId, type: "call", call, method, args });
      });
    },
    settle(reply) {
      const waiting = pending.get(reply?.call);
      if (!waiting) return;
      pending.delete(reply.call);
      if (reply.ok) waiting.resolve(reply.result);
      else
        waiting.reject(
          new ServiceCallError(String(reply.error?.code ?? "ERROR"), String(reply.error?.message ?? "the service refused the call")),
        );
    },
  };
}
