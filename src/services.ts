// Everything the transports and workers need, built once by the composition root (main.ts).
import type { Ctx } from "./domain/context.js";
import type { Mailer } from "./mail/mailer.js";
import type { JobQueue } from "./queue/job-queue.js";
import type { ComponentRunner } from "./runtime/component-runner.js";
import type { Store } from "./store/store.js";
import type { WorkflowDeps } from "./domain/workflows/run-workflow.js";
import type { HttpSender } from "./domain/workflows/runs/send-http.js";

export interface Services {
  ctx: Ctx;
  store: Store;
  queue: JobQueue;
  /** The sandboxed code runner (a CodeRunner; pool and module store for the workflow runtime). */
  runner: ComponentRunner;
  /** Outgoing e-mail ($.send.email of workflow steps): SMTP when configured, else the log. */
  mailer: Mailer;
  /** Outgoing HTTP requests of workflow steps ($.send.http), through the egress guard. */
  httpSender: HttpSender;
}

/** The dependencies of workflow runs, taken from the services. */
export function workflowDeps(services: Services): WorkflowDeps {
  return { ctx: services.ctx, runner: services.runner, queue: services.queue, mailer: services.mailer, httpSender: services.httpSender };
}
