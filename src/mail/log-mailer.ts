// Without SMTP, mail is written to the service log so the summary is not lost.
import type { Logger } from "pino";
import type { Mailer, MailMessage } from "./mailer.js";

export function logMailer(logger: Logger): Mailer {
  return {
    async send(message: MailMessage) {
      logger.warn({ mail: message }, `mail (SLUICE_SMTP_URL is not set): ${message.subject}`);
    },
    async close() {},
  };
}
