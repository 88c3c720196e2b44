// The dependencies of workflow runs, built once per started service from its Services.
import { createMailer } from "../../mail/create-mailer.js";
import type { Services } from "../../services.js";
import type { WorkflowDeps } from "./run-workflow.js";

const built = new WeakMap<Services, WorkflowDeps>();

export function workflowDeps(services: Services): WorkflowDeps {
  let deps = built.get(services);
  if (!deps) {
    const { ctx } = services;
    deps = { ctx, runner: services.runner, queue: services.queue, mailer: createMailer(ctx.config, ctx.logger) };
    built.set(services, deps);
  }
  return deps;
}
