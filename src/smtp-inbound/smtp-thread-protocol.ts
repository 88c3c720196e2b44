// What crosses between the API's thread and the SMTP thread (smtp-thread.ts): plain data that
// structured cloning copies, no functions. The SMTP thread owns the sockets and every byte of
// mail; it asks the API's thread for each decision of policy or storage (a client's limits, a
// recipient, storing a message) and is asked back only to parse a message it holds.
import type { EmailEvent } from "../domain/inbound-email/email-event.js";

/** The listener's settings the SMTP thread needs (its workerData). */
export interface SmtpThreadSettings {
  host: string;
  port: number;
  name: string;
  maxMessageBytes: number;
  maxEventBytes: number;
  maxMessagesInFlight: number;
  tls: { certFile: string; keyFile: string } | undefined;
  parser: { threads?: number; maxQueued?: number; timeoutMs?: number; threadModule?: string };
}

/** A reply the SMTP thread sends its client as it is; ok lets smtp-server go on (or say 250 with `message`). */
export type Verdict = { ok: true; message?: string } | { ok: false; code: number; text: string };

/** What the SMTP thread asks; `session` is smtp-server's session id. */
export type Question =
  | { type: "connect"; session: string; address: string; threadId: number }
  | { type: "mail-from"; address: string }
  | { type: "rcpt"; address: string }
  | { type: "receive"; message: number; cut: boolean; mailFrom: string; recipients: string[] };

export type ParseAnswer = { event: EmailEvent; threadId: number } | { error: { message: string; kind: "busy" | "invalid" | "fault" } };

export type FromSmtpThread =
  | { kind: "ask"; id: number; question: Question }
  | { kind: "disconnect"; session: string }
  | { kind: "parsed"; id: number; answer: ParseAnswer }
  | { kind: "log"; level: "debug" | "warn" | "error"; msg: string; err?: { message: string; code?: string; stack?: string } }
  | { kind: "listening"; address: string; family: string; port: number }
  | { kind: "listen-failed"; message: string; code?: string }
  | { kind: "closed" };

export type ToSmtpThread =
  | { kind: "verdict"; id: number; verdict: Verdict }
  /** Parse the message the thread holds under `message` (receiveEmail's parse). */
  | { kind: "parse"; id: number; message: number; maxBytes: number }
  | { kind: "close" };
