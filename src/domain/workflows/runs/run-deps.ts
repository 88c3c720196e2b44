// What driving a run needs: the context, the code runner, the queue (wake-ups, the error
// workflow's runs) and the mailer ($.send.email).
import type { Ctx } from "../../context.js";
import type { JobQueue } from "../../../queue/job-queue.js";
import type { Mailer } from "../../../mail/mailer.js";
import type { WorkflowRunner } from "../workflow-runner.js";

export interface RunDeps {
  ctx: Ctx;
  runner: WorkflowRunner;
  queue: JobQueue;
  mailer: Mailer;
}
