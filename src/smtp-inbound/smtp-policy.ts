// The decisions of the inbound SMTP listener, made on the API's thread for the SMTP thread
// (smtp-thread.ts) that asks them: a client's limits (with the app's clock), whether a
// recipient is accepted, and storing a message (250 only once its events are stored). Each is
// answered with the reply the SMTP thread sends as it is, so replies are decided here alone.
import type { Logger } from "pino";
import type { Ctx } from "../domain/context.js";
import { acceptRecipient, receiveEmail, type ParseEmail } from "../domain/inbound-email/receive-email.js";
import { createClientLimits, type ClientLimitsOptions } from "./client-limits.js";
import { ParserBusyError } from "./email-parser-pool.js";
import { serviceErrorSmtpReply, temporaryFailure, type SmtpReply } from "./smtp-replies.js";
import type { Verdict } from "./smtp-thread-protocol.js";

export interface SmtpPolicy {
  /** A new connection; 421 when its client has its most already (else the caller must disconnect it later). */
  connect(address: string): Verdict;
  disconnect(address: string): void;
  /** MAIL FROM; 451 when its client is past its messages this minute. */
  mailFrom(address: string): Verdict;
  rcpt(address: string): Promise<Verdict>;
  /** The end of DATA: the message (parsed by `parse`) stored as events. */
  receive(input: { cut: boolean; mailFrom: string; recipients: string[] }, parse: ParseEmail): Promise<Verdict>;
}

const refuse = (reply: SmtpReply): Verdict => ({ ok: false, code: reply.responseCode, text: reply.message });
const TOO_MANY: Verdict = { ok: false, code: 451, text: "4.3.2 too many messages at once; try again later" };
// The message's bytes stay in the SMTP thread, which parses them when the verb asks (`parse`).
const HELD_IN_THE_SMTP_THREAD = Buffer.alloc(0);

export function createSmtpPolicy(ctx: Ctx, logger: Logger, limitsOptions: Omit<ClientLimitsOptions, "now">): SmtpPolicy {
  const limits = createClientLimits({ ...limitsOptions, now: () => ctx.clock.now() });
  const replyTo = (error: unknown): Verdict => {
    if (error instanceof ParserBusyError) return TOO_MANY;
    const reply = serviceErrorSmtpReply(error);
    if (reply) return refuse(reply);
    logger.error({ err: error }, "inbound e-mail could not be stored");
    return refuse(temporaryFailure());
  };
  return {
    connect: (address) =>
      limits.connect(address)
        ? { ok: true }
        : { ok: false, code: 421, text: "4.7.0 too many connections from your address; try again later" },
    disconnect: (address) => limits.disconnect(address),
    mailFrom: (address) =>
      limits.message(address) ? { ok: true } : { ok: false, code: 451, text: "4.7.1 too many messages from your address; try again later" },
    rcpt: (address) => acceptRecipient({ ctx, input: { address } }).then(() => ({ ok: true }), replyTo),
    receive: (input, parse) =>
      receiveEmail({ ctx, input: { ...input, raw: HELD_IN_THE_SMTP_THREAD }, parse }).then(
        () => ({ ok: true, message: "2.0.0 stored" }),
        replyTo,
      ),
  };
}
