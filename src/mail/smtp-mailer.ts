// Mail over SMTP with nodemailer (the well-kept Node SMTP client), from SLUICE_SMTP_URL.
import nodemailer from "nodemailer";
import type { Mailer, MailMessage } from "./mailer.js";

export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message: MailMessage) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    async close() {
      transport.close();
    },
  };
}
