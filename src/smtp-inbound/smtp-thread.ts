// The SMTP transport in a thread of its own (ADR 0034): smtp-server, the socket reads, STARTTLS,
// the DATA stream (smtp-server scans every byte of it in JavaScript for the terminating dot)
// and reading the message (read-message.ts) all run here, so no byte of mail is handled on the
// API's event loop. Parsing goes on to the parse threads (email-parser-pool.ts), so one slow
// parse does not hold up this thread's other clients. Every decision of policy or storage —
// a client's limits, a recipient, storing a message — is asked of the API's thread
// (smtp-listener.ts), which answers with the reply to send.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { parentPort, threadId, workerData } from "node:worker_threads";
import { SMTPServer } from "smtp-server";
import { fitEvent, type EmailEvent } from "../domain/inbound-email/email-event.js";
import { ServiceError } from "../lib/errors.js";
import { createEmailParserPool, ParserBusyError } from "./email-parser-pool.js";
import { readMessage } from "./read-message.js";
import { smtpReply, type SmtpReply } from "./smtp-replies.js";
import type { FromSmtpThread, ParseAnswer, Question, SmtpThreadSettings, ToSmtpThread, Verdict } from "./smtp-thread-protocol.js";

/** Connections at once; a client past it gets 421. */
const MAX_CLIENTS = 100;
/** Recipients of one message (RFC 5321 asks servers to take at least 100); past it 452. */
const MAX_RECIPIENTS = 100;
const SOCKET_TIMEOUT_MS = 60_000;
/** How long closing waits for clients in the middle of a message. */
const CLOSE_TIMEOUT_MS = 5_000;

const port = parentPort!;
const settings = workerData as SmtpThreadSettings;
const send = (message: FromSmtpThread) => port.postMessage(message);
const tooMany = () => smtpReply(451, "4.3.2 too many messages at once; try again later");

interface Held {
  raw: Buffer;
  cut: boolean;
  mailFrom: string;
  recipients: string[];
}

// Questions waiting for the API's thread. Each holds at most a callback; the bytes of a
// message wait in `held` (at most maxMessagesInFlight of them).
const asked = new Map<number, (verdict: Verdict) => void>();
const held = new Map<number, Held>();
let nextId = 1;

function ask(question: Question): Promise<Verdict> {
  const id = nextId++;
  return new Promise((resolve) => {
    asked.set(id, resolve);
    send({ kind: "ask", id, question });
  });
}

/** Calls smtp-server's callback with the API thread's verdict. */
const answer = (callback: (error?: SmtpReply | null, message?: string) => void) => (verdict: Verdict) =>
  verdict.ok ? callback(null, verdict.message) : callback(smtpReply(verdict.code, verdict.text));

// The pool reports the thread of a parse just before it resolves that parse's promise, and
// the promise's continuation runs before the pool's next message: this is that parse's thread.
let parsedIn = 0;
const parser = createEmailParserPool({
  ...settings.parser,
  threadModule: settings.parser.threadModule ? new URL(settings.parser.threadModule) : undefined,
  onParsed: (id) => (parsedIn = id),
});

// The event fitted here, to the envelope of all the message's recipients (each source's is
// part of it; every timestamp is as long): cutting bodies of megabytes to size is seconds of
// JSON on a loaded host, and the verb's own fit on the API's thread then takes one look.
// An event that cannot fit goes as it is, for the verb to refuse.
function preFit(event: EmailEvent, message: Held, maxBytes: number): EmailEvent {
  try {
    const { mail: _mail, ...fitted } = fitEvent(
      event,
      { source: message.mailFrom, destination: message.recipients, timestamp: new Date(0).toISOString() },
      maxBytes,
      message.cut,
    );
    return fitted;
  } catch {
    return event;
  }
}

async function parse(id: number, maxBytes: number): Promise<ParseAnswer> {
  const message = held.get(id);
  if (!message) return { error: { message: "the message is no longer held", kind: "fault" } };
  try {
    const event = await parser.parse(message.raw, maxBytes);
    const threadOfParse = parsedIn;
    return { event: preFit(event, message, maxBytes), threadId: threadOfParse };
  } catch (error) {
    const kind =
      error instanceof ParserBusyError ? "busy" : error instanceof ServiceError && error.code === "VALIDATION" ? "invalid" : "fault";
    return { error: { message: error instanceof Error ? error.message : String(error), kind } };
  }
}

let inFlight = 0;
const server = new SMTPServer({
  name: settings.name,
  banner: "Sluice inbound mail",
  size: settings.maxMessageBytes,
  // Over the size, 552 whatever onData decides.
  rejectOversized: true,
  authOptional: true,
  disabledCommands: settings.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
  ...(settings.tls ? { cert: readFileSync(settings.tls.certFile), key: readFileSync(settings.tls.keyFile) } : {}),
  // The client's address is not looked up in DNS: nothing here needs its name.
  disableReverseLookup: true,
  maxClients: MAX_CLIENTS,
  maxRecipients: MAX_RECIPIENTS,
  socketTimeout: SOCKET_TIMEOUT_MS,
  closeTimeout: CLOSE_TIMEOUT_MS,
  logger: false,
  onConnect(session, callback) {
    void ask({ type: "connect", session: session.id, address: session.remoteAddress, threadId }).then(answer(callback));
  },
  onClose(session) {
    send({ kind: "disconnect", session: session.id });
  },
  onMailFrom(_address, session, callback) {
    void ask({ type: "mail-from", address: session.remoteAddress }).then(answer(callback));
  },
  onRcptTo(address, _session, callback) {
    void ask({ type: "rcpt", address: address.address }).then(answer(callback));
  },
  onData(stream, session, callback) {
    // Unread, the message is drained by smtp-server and answered after its end.
    if (inFlight >= settings.maxMessagesInFlight) return callback(tooMany());
    inFlight++;
    const message = nextId++;
    let settled = false;
    const done = (error?: SmtpReply | Error | null, text?: string) => {
      if (settled) return;
      settled = true;
      inFlight--;
      held.delete(message);
      callback(error, text);
    };
    // Past the size limit the rest is not read: 552 at once and the connection closes, so an
    // oversized message costs the bytes up to the limit, not all of them.
    const refuseOversized = () => {
      if (!stream.sizeExceeded || settled) return;
      stream.off("data", refuseOversized);
      settled = true;
      inFlight--;
      held.delete(message);
      closeOversized(session.id);
    };
    stream.on("data", refuseOversized);
    readMessage(stream, settings.maxEventBytes).then(
      ({ raw, cut }) => {
        // Over the size limit smtp-server answers 552 itself (rejectOversized).
        if (stream.sizeExceeded) return done();
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        held.set(message, { raw, cut, mailFrom, recipients });
        void ask({ type: "receive", message, cut, mailFrom, recipients }).then(answer(done));
      },
      // The client went away in the middle of the message: there is no one to answer.
      (error: Error) => done(error),
    );
  },
});

/** Answers 552 to the connection of an oversized message and closes it without reading the rest. */
function closeOversized(sessionId: string): void {
  for (const connection of server.connections as Set<{ id: string; send(code: number, text: string): void; close(): void }>) {
    if (connection.id !== sessionId) continue;
    connection.send(552, "5.3.4 Message exceeds the fixed maximum message size; closing the connection");
    connection.close();
  }
}

// A listener open to the Internet sees clients vanish mid-conversation all the time.
const routine = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT"]);
server.on("error", (error: NodeJS.ErrnoException) =>
  send({
    kind: "log",
    level: routine.has(error.code ?? "") ? "debug" : "warn",
    msg: "inbound SMTP connection failed",
    err: { message: error.message, code: error.code, stack: error.stack },
  }),
);

port.on("message", (message: ToSmtpThread) => {
  if (message.kind === "verdict") {
    const resolve = asked.get(message.id);
    asked.delete(message.id);
    resolve?.(message.verdict);
  } else if (message.kind === "parse") {
    void parse(message.message, message.maxBytes).then((parsed) => send({ kind: "parsed", id: message.id, answer: parsed }));
  } else {
    // smtp-server waits for clients in the middle of a message (closeTimeout), whose questions
    // the API's thread still answers; then the parse threads end and so does this one.
    server.close(() => void parser.close().then(() => send({ kind: "closed" })));
  }
});

const listenFailed = (error: NodeJS.ErrnoException) => send({ kind: "listen-failed", message: error.message, code: error.code });
server.server.once("error", listenFailed);
server.listen(settings.port, settings.host, () => {
  server.server.off("error", listenFailed);
  const address = server.server.address() as AddressInfo;
  send({ kind: "listening", address: address.address, family: address.family, port: address.port });
});
