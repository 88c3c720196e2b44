// A run of a target's code that failed or was killed before it responded to the request that
// started it. The public endpoints answer it with a 500 naming the failure (error and code).
import type { ExecutionFailure } from "../../runtime/code-runner.js";

export class ExecutionFailedError extends Error {
  /** ERROR, TIMEOUT, MEMORY, CRASH…: the failure's kind. */
  readonly code: string;

  constructor(
    message: string,
    readonly failure: ExecutionFailure,
  ) {
    super(message);
    this.name = "ExecutionFailedError";
    this.code = failure.kind.toUpperCase();
  }
}
