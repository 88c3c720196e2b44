// E-mails a step asked for ($.send.email) go to the account owner only, after the step's
// results are stored; a failure to send is logged, never the run's failure.
import type { Mailer } from "../../../mail/mailer.js";
import type { EmailRequest } from "../../../runner/protocol/workflow-execution.js";
import type { Ctx } from "../../context.js";

export const MAX_EMAILS_PER_STEP = 5;

export async function sendEmails(
  deps: { ctx: Ctx; mailer: Mailer },
  userId: string,
  workflowId: string,
  emails: EmailRequest[],
): Promise<void> {
  if (emails.length === 0) return;
  const owner = await deps.ctx.db.selectFrom("users").select("email").where("id", "=", userId).executeTakeFirst();
  if (!owner) return;
  for (const email of emails.slice(0, MAX_EMAILS_PER_STEP)) {
    try {
      await deps.mailer.send({ to: owner.email, subject: email.subject, text: email.text });
    } catch (error) {
      deps.ctx.logger.error({ err: error, workflowId }, "sending a workflow e-mail failed");
    }
  }
}
