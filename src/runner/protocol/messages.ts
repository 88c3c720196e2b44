// Messages between the service and a runner child process (over the runner's channel).
// The service sends requests to a runner, one per message or several in one (a batch), and the
// runner runs them one by one, answering each with `done` or `failed`; it may send `event`s
// for a request before that (e.g. an early HTTP response), and `call`s: questions to the
// service during the request (e.g. a data store operation), each answered by a `reply`.

export interface RequestMessage {
  id: number;
  type: string; // a key of the child's handler table (src/runner/handlers.ts)
  payload: unknown;
}

/** An error of the code being run, as plain data. `validation` marks bad code at inspection. */
export interface ErrorData {
  name: string;
  message: string;
  stack: string;
  validation?: boolean;
}

/**
 * `ms` on `done` and `failed`: how long the request ran in the runner, by its own clock. The
 * pool sizes batches by it (process-pool.ts): timed in the service, the answer's wait for a
 * busy event loop would count as the request's own time.
 */
export type ChildMessage =
  | { type: "ready" }
  | { id: number; type: "event"; event: unknown }
  | { id: number; type: "done"; result: unknown; recycle?: boolean; ms?: number }
  | { id: number; type: "failed"; error: ErrorData; recycle?: boolean; ms?: number }
  | { id: number; type: "call"; call: number; method: string; args: unknown };

/** The service's answer to a call: its result, or an error for the code that called. */
export type ReplyMessage =
  | { type: "reply"; call: number; ok: true; result: unknown }
  | { type: "reply"; call: number; ok: false; error: { code: string; message: string } };

/** What a handler in the child receives besides its payload. */
export interface HandlerTools {
  /** Sends an intermediate event to the service before the request completes. */
  emitEvent(event: unknown): void;
  /**
   * Asks the service something during the request (a method of its call table, e.g.
   * "dataStore.get"); rejects with the service's error, or once the request has ended.
   */
  callService(method: string, args: unknown): Promise<unknown>;
}

export type Handler = (payload: any, tools: HandlerTools) => Promise<unknown>;
