// The inbound SMTP listener of e-mail sources (SLUICE_SMTP_INBOUND_PORT, api role), on
// smtp-server: RCPT TO is checked at once (an unknown address, another domain or an inactive
// source gets 550; a full account 452), the message is read up to SLUICE_SMTP_MAX_MESSAGE_BYTES
// (advertised with SIZE; over it 552) keeping only its header section and SLUICE_MAX_EVENT_BYTES
// of body, it is parsed in a worker thread, and 250 is sent only once the verb has stored its
// events; a fault of the service answers 451 so that the sender tries again, as does a message
// past the few held at once. No AUTH: anyone may send mail to an address, as to any mailbox,
// so each client address has limits of its own: connections at once (421 past them) and
// messages a minute (451 at MAIL FROM past them). STARTTLS only with a certificate.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { SMTPServer, type SMTPServerSession } from "smtp-server";
import { acceptRecipient, receiveEmail } from "../domain/inbound-email/receive-email.js";
import type { Services } from "../services.js";
import { createClientLimits } from "./client-limits.js";
import { createEmailParserPool, ParserBusyError, type EmailParserOptions } from "./email-parser-pool.js";
import { readMessage } from "./read-message.js";
import { serviceErrorSmtpReply, smtpReply, temporaryFailure, type SmtpReply } from "./smtp-replies.js";

export interface SmtpListenerOptions {
  host: string;
  port: number;
  /** The name in the greeting: the e-mail domain. */
  name: string;
  maxMessageBytes: number;
  /** SLUICE_MAX_EVENT_BYTES: of a message, its header section and this much body are kept. */
  maxEventBytes: number;
  /** Connections at once from one client address (default 5); past it 421. */
  maxConnectionsPerClient?: number;
  /** Messages a minute from one client address (default 60); past it 451 at MAIL FROM. */
  maxMessagesPerClientMinute?: number;
  /** The length of that minute (tests shorten it). */
  clientWindowMs?: number;
  /** The pool of parse threads (tests watch it). */
  parser?: EmailParserOptions;
  /** PEM files; without them STARTTLS is neither offered nor accepted. */
  tls?: { certFile: string; keyFile: string };
  /** Messages read and stored at once (each held in memory, up to twice maxEventBytes); past it 451. */
  maxMessagesInFlight?: number;
  logger: Logger;
}

export interface SmtpListener {
  /** Where it listens, e.g. smtp://127.0.0.1:2525. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Connections at once; a client past it gets 421. */
const MAX_CLIENTS = 100;
/** Recipients of one message (RFC 5321 asks servers to take at least 100); past it 452. */
const MAX_RECIPIENTS = 100;
const SOCKET_TIMEOUT_MS = 60_000;
/** How long closing waits for clients in the middle of a message. */
const CLOSE_TIMEOUT_MS = 5_000;
/** With the default event size, at most about 40 MB of messages held at once. */
const MAX_MESSAGES_IN_FLIGHT = 10;
const MAX_CONNECTIONS_PER_CLIENT = 5;
const MAX_MESSAGES_PER_CLIENT_MINUTE = 60;

export async function startSmtpListener(services: Pick<Services, "ctx">, options: SmtpListenerOptions): Promise<SmtpListener> {
  const { ctx } = services;
  const { logger } = options;
  const replyTo = (error: unknown): SmtpReply => {
    const reply = serviceErrorSmtpReply(error);
    if (reply) return reply;
    logger.error({ err: error }, "inbound e-mail could not be stored");
    return temporaryFailure();
  };
  const maxInFlight = options.maxMessagesInFlight ?? MAX_MESSAGES_IN_FLIGHT;
  let inFlight = 0;
  const limits = createClientLimits({
    maxConnections: options.maxConnectionsPerClient ?? MAX_CONNECTIONS_PER_CLIENT,
    maxMessagesPerWindow: options.maxMessagesPerClientMinute ?? MAX_MESSAGES_PER_CLIENT_MINUTE,
    windowMs: options.clientWindowMs,
    now: () => ctx.clock.now(),
  });
  // The address each counted connection took a place under, by session id.
  const counted = new Map<string, string>();
  const parser = createEmailParserPool(options.parser);
  const parse = (raw: Buffer, maxBytes: number) => parser.parse(raw, maxBytes);
  const server = new SMTPServer({
    name: options.name,
    banner: "Sluice inbound mail",
    size: options.maxMessageBytes,
    // Over the size, 552 whatever onData decides.
    rejectOversized: true,
    authOptional: true,
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    ...(options.tls ? { cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile) } : {}),
    // The client's address is not looked up in DNS: nothing here needs its name.
    disableReverseLookup: true,
    maxClients: MAX_CLIENTS,
    maxRecipients: MAX_RECIPIENTS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    closeTimeout: CLOSE_TIMEOUT_MS,
    logger: false,
    onConnect(session, callback) {
      if (!limits.connect(session.remoteAddress)) return callback(smtpReply(421, "4.7.0 too many connections from your address; try again later"));
      counted.set(session.id, session.remoteAddress);
      callback();
    },
    onClose(session) {
      const address = counted.get(session.id);
      if (address === undefined) return;
      counted.delete(session.id);
      limits.disconnect(address);
    },
    onMailFrom(_address, session, callback) {
      if (!limits.message(session.remoteAddress)) return callback(smtpReply(451, "4.7.1 too many messages from your address; try again later"));
      callback();
    },
    onRcptTo(address, _session, callback) {
      acceptRecipient({ ctx, input: { address: address.address } }).then(
        () => callback(),
        (error: unknown) => callback(replyTo(error)),
      );
    },
    onData(stream, session, callback) {
      // Unread, the message is drained by smtp-server and answered after its end.
      if (inFlight >= maxInFlight) return callback(smtpReply(451, "4.3.2 too many messages at once; try again later"));
      inFlight++;
      const done = (error?: SmtpReply | Error | null, message?: string) => {
        inFlight--;
        callback(error, message);
      };
      readMessage(stream, options.maxEventBytes).then(
        ({ raw, cut }) => {
          // Over the size limit smtp-server answers 552 itself (rejectOversized).
          if (stream.sizeExceeded) return done();
          receiveEmail({ ctx, input: { raw, cut, mailFrom: mailFromOf(session), recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address) }, parse }).then(
            () => done(null, "2.0.0 stored"),
            (error: unknown) => done(error instanceof ParserBusyError ? smtpReply(451, "4.3.2 too many messages at once; try again later") : replyTo(error)),
          );
        },
        // The client went away in the middle of the message: there is no one to answer.
        (error: Error) => done(error),
      );
    },
  });
  // A listener open to the Internet sees clients vanish mid-conversation all the time.
  const routine = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT"]);
  server.on("error", (error: NodeJS.ErrnoException) => logger[routine.has(error.code ?? "") ? "debug" : "warn"]({ err: error }, "inbound SMTP connection failed"));
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      void parser.close();
      reject(error);
    };
    server.server.once("error", failed);
    server.listen(options.port, options.host, () => {
      server.server.off("error", failed);
      resolve();
    });
  });
  const address = server.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `smtp://${host}:${address.port}`,
    port: address.port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await parser.close();
    },
  };
}

const mailFromOf = (session: SMTPServerSession): string => (session.envelope.mailFrom ? session.envelope.mailFrom.address : "");
