// Hooks workflows into the platform: "p" ids are owned resources (subscriptions validate them),
// queued runs have a job handler, and subscriptions deliver to workflows through "p".
import { registerListenerHandler } from "../../delivery/listener-handlers.js";
import type { Services } from "../../services.js";
import { registerOwnedResource } from "../ownership.js";
import { workflowDeps } from "./deps.js";
import { WORKFLOW_RUN_JOB, type WorkflowRunJob } from "./run-workflow.js";
import { handleWorkflowDelivery, handleWorkflowRunJob } from "./workflow-jobs.js";
import "./error-workflow.js"; // every new account gets its global error workflow

registerOwnedResource("p", "workflows");

/** Called once by the composition root, before the queue starts. */
export function installWorkflows(services: Services): void {
  const deps = workflowDeps(services);
  services.queue.handle(WORKFLOW_RUN_JOB, async (job) => handleWorkflowRunJob(deps, job.payload as WorkflowRunJob, job.complete));
  registerListenerHandler("p", (delivery) => handleWorkflowDelivery(deps, delivery));
}
