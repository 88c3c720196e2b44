// Maps what the inbound e-mail verbs throw to SMTP replies, in one place (the SMTP twin of
// http/error-handler.ts). Permanent refusals are 5xx, so the sender bounces the message at
// once; anything the service could get past later is 4xx, so the sender keeps the message and
// tries again. The enhanced status code (RFC 3463) leads the text.
import { ServiceError, type ServiceErrorCode } from "../lib/errors.js";

/** What smtp-server sends for an error passed to a handler's callback. */
export interface SmtpReply extends Error {
  responseCode: number;
}

const REPLIES: Record<ServiceErrorCode, { code: number; status: string }> = {
  // No such address, another domain, or an inactive source.
  NOT_FOUND: { code: 550, status: "5.1.1" },
  // The account's storage quota: a mailbox that is full for now.
  LIMIT_EXCEEDED: { code: 452, status: "4.2.2" },
  // The message's event is too large even without its bodies.
  PAYLOAD_TOO_LARGE: { code: 552, status: "5.3.4" },
  // A message mailparser cannot read.
  VALIDATION: { code: 554, status: "5.6.0" },
  UNAUTHORIZED: { code: 550, status: "5.7.1" },
  CONFLICT: { code: 451, status: "4.3.0" },
  UPSTREAM: { code: 451, status: "4.3.0" },
};

const TEXT: Partial<Record<ServiceErrorCode, string>> = { NOT_FOUND: "no such mailbox" };

export function smtpReply(code: number, text: string): SmtpReply {
  return Object.assign(new Error(text), { responseCode: code });
}

/** The reply to an error of a verb; undefined for a fault of the service (see temporaryFailure). */
export function serviceErrorSmtpReply(error: unknown): SmtpReply | undefined {
  if (!(error instanceof ServiceError)) return undefined;
  const reply = REPLIES[error.code];
  return smtpReply(reply.code, `${reply.status} ${TEXT[error.code] ?? oneLine(error.message)}`);
}

/** A fault of the service (the database, a bug): the sender keeps the message and tries again. */
export const temporaryFailure = (): SmtpReply => smtpReply(451, "4.3.0 temporary failure storing the message; try again later");

/** Reply text is one line (smtp-server also replaces control characters). */
const oneLine = (text: string) => text.replace(/\s+/g, " ").slice(0, 400);
