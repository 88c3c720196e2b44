// The dependencies of workflow runs, taken from the Services the composition root built.
import type { Services } from "../../services.js";
import type { WorkflowDeps } from "./run-workflow.js";

export function workflowDeps(services: Services): WorkflowDeps {
  return { ctx: services.ctx, runner: services.runner, queue: services.queue, mailer: services.mailer };
}
