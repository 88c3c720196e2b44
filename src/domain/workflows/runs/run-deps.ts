// What driving a run needs: the context, the code runner, the queue (wake-ups, the error
// workflow's runs), the mailer ($.send.email) and the HTTP sender ($.send.http).
import type { Ctx } from "../../context.js";
import type { JobQueue } from "../../../queue/job-queue.js";
import type { Mailer } from "../../../mail/mailer.js";
import type { WorkflowRunner } from "../workflow-runner.js";
import type { HttpSender } from "./send-http.js";

export interface RunDeps {
  ctx: Ctx;
  runner: WorkflowRunner;
  queue: JobQueue;
  mailer: Mailer;
  httpSender: HttpSender;
}
