// The inbound SMTP listener of e-mail sources (SLUICE_SMTP_INBOUND_PORT, api role), on
// smtp-server: RCPT TO is checked at once (an unknown address, another domain or an inactive
// source gets 550; a full account 452), the message is read up to SLUICE_SMTP_MAX_MESSAGE_BYTES
// (advertised with SIZE; over it 552) keeping only its header section and SLUICE_MAX_EVENT_BYTES
// of body, it is parsed in a worker thread, and 250 is sent only once the verb has stored its
// events; a fault of the service answers 451 so that the sender tries again, as does a message
// past the few held at once. No AUTH: anyone may send mail to an address, as to any mailbox,
// so each client address has limits of its own: connections at once (421 past them) and
// messages a minute (451 at MAIL FROM past them). STARTTLS only with a certificate.
//
// The transport runs in a thread of its own (smtp-thread.ts), so that no byte of mail is handled
// on the API's event loop; this side starts it, answers its questions (smtp-policy.ts), and
// starts a new one, listening on the same port, should it crash.
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import type { ParseEmail } from "../domain/inbound-email/receive-email.js";
import { ServiceError } from "../lib/errors.js";
import type { Services } from "../services.js";
import { ParserBusyError, type EmailParserOptions } from "./email-parser-pool.js";
import { createSmtpPolicy } from "./smtp-policy.js";
import { temporaryFailure } from "./smtp-replies.js";
import type { FromSmtpThread, ParseAnswer, Question, SmtpThreadSettings, ToSmtpThread, Verdict } from "./smtp-thread-protocol.js";

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
  /** Told the thread each connection is handled in (tests). */
  onConnection?: (threadId: number) => void;
  logger: Logger;
}

export interface SmtpListener {
  /** Where it listens, e.g. smtp://127.0.0.1:2525. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** With the default event size, at most about 40 MB of messages held at once. */
const MAX_MESSAGES_IN_FLIGHT = 10;
const MAX_CONNECTIONS_PER_CLIENT = 5;
const MAX_MESSAGES_PER_CLIENT_MINUTE = 60;
/** Closing waits for smtp-server's own close timeout (5 s), then ends the thread. */
const CLOSE_WAIT_MS = 7_000;
/** Between attempts to listen again after the thread crashed. */
const RESTART_DELAY_MS = 1_000;

interface Running {
  worker: Worker;
  address: string;
  family: string;
  port: number;
  exited: Promise<void>;
}

export async function startSmtpListener(services: Pick<Services, "ctx">, options: SmtpListenerOptions): Promise<SmtpListener> {
  const { logger } = options;
  const policy = createSmtpPolicy(services.ctx, logger, {
    maxConnections: options.maxConnectionsPerClient ?? MAX_CONNECTIONS_PER_CLIENT,
    maxMessagesPerWindow: options.maxMessagesPerClientMinute ?? MAX_MESSAGES_PER_CLIENT_MINUTE,
    windowMs: options.clientWindowMs,
  });
  const { threads, maxQueued, timeoutMs, threadModule, onParsed } = options.parser ?? {};
  const settings: SmtpThreadSettings = {
    host: options.host,
    port: options.port,
    name: options.name,
    maxMessageBytes: options.maxMessageBytes,
    maxEventBytes: options.maxEventBytes,
    maxMessagesInFlight: options.maxMessagesInFlight ?? MAX_MESSAGES_IN_FLIGHT,
    tls: options.tls,
    parser: { threads, maxQueued, timeoutMs, threadModule: threadModule?.href },
  };
  let closing = false;
  let restart: NodeJS.Timeout | undefined;

  function run(port: number): Promise<Running> {
    const worker = new Worker(new URL("./smtp-thread.js", import.meta.url), {
      workerData: { ...settings, port } satisfies SmtpThreadSettings,
    });
    const post = (message: ToSmtpThread) => worker.postMessage(message);
    // The address each counted connection took a place under, by session id: given back when
    // the connection closes, or all at once when the thread ends.
    const counted = new Map<string, string>();
    const parses = new Map<number, { resolve: (answer: ParseAnswer) => void }>();
    let nextParse = 1;
    const parseIn =
      (message: number): ParseEmail =>
      async (_raw, maxBytes) => {
        const id = nextParse++;
        const answer = await new Promise<ParseAnswer>((resolve) => {
          parses.set(id, { resolve });
          post({ kind: "parse", id, message, maxBytes });
        });
        if ("event" in answer) {
          onParsed?.(answer.threadId);
          return answer.event;
        }
        const { kind, message: text } = answer.error;
        throw kind === "busy" ? new ParserBusyError() : kind === "invalid" ? new ServiceError("VALIDATION", text) : new Error(text);
      };
    const decide = async (question: Question): Promise<Verdict> => {
      switch (question.type) {
        case "connect": {
          const verdict = policy.connect(question.address);
          if (verdict.ok) counted.set(question.session, question.address);
          options.onConnection?.(question.threadId);
          return verdict;
        }
        case "mail-from":
          return policy.mailFrom(question.address);
        case "rcpt":
          return policy.rcpt(question.address);
        case "receive":
          return policy.receive(question, parseIn(question.message));
      }
    };
    let resolveExit: () => void;
    const exited = new Promise<void>((resolve) => (resolveExit = resolve));
    return new Promise<Running>((resolve, reject) => {
      let listening = false;
      worker.on("message", (message: FromSmtpThread) => {
        switch (message.kind) {
          case "listening":
            listening = true;
            resolve({ worker, address: message.address, family: message.family, port: message.port, exited });
            break;
          case "listen-failed":
            reject(Object.assign(new Error(message.message), { code: message.code }));
            void worker.terminate();
            break;
          case "ask":
            void decide(message.question)
              .catch((error: unknown): Verdict => {
                logger.error({ err: error }, "inbound e-mail could not be stored");
                const reply = temporaryFailure();
                return { ok: false, code: reply.responseCode, text: reply.message };
              })
              .then((verdict) => post({ kind: "verdict", id: message.id, verdict }));
            break;
          case "disconnect": {
            const address = counted.get(message.session);
            if (address === undefined) break;
            counted.delete(message.session);
            policy.disconnect(address);
            break;
          }
          case "parsed":
            parses.get(message.id)?.resolve(message.answer);
            parses.delete(message.id);
            break;
          case "log":
            logger[message.level]({ err: message.err }, message.msg);
            break;
          case "closed":
            void worker.terminate();
            break;
        }
      });
      worker.on("error", (error) => logger.error({ err: error }, "the inbound SMTP thread failed"));
      worker.on("exit", () => {
        for (const address of counted.values()) policy.disconnect(address);
        counted.clear();
        // Its messages' senders lost their connections with it and send again.
        for (const { resolve: answer } of parses.values()) answer({ error: { message: "the inbound SMTP thread ended", kind: "fault" } });
        parses.clear();
        if (!listening) reject(new Error("the inbound SMTP thread ended before it listened"));
        resolveExit();
        if (listening && !closing) {
          logger.error("the inbound SMTP thread ended; starting a new one");
          relaunch(current.port);
        }
      });
    });
  }

  // A crashed thread's port is free again once it is gone; should listening fail all the same
  // (another process took the port), it is tried again until it works or the listener closes.
  function relaunch(port: number): void {
    if (closing) return;
    run(port).then(
      (running) => {
        if (closing) void running.worker.terminate();
        current = running;
      },
      (error: unknown) => {
        logger.error({ err: error }, "the inbound SMTP thread could not listen again");
        restart = setTimeout(() => relaunch(port), RESTART_DELAY_MS);
      },
    );
  }

  let current = await run(options.port);
  const host = current.family === "IPv6" ? `[${current.address}]` : current.address;
  return {
    url: `smtp://${host}:${current.port}`,
    port: current.port,
    close: async () => {
      closing = true;
      clearTimeout(restart);
      const { worker, exited } = current;
      worker.postMessage({ kind: "close" } satisfies ToSmtpThread);
      const stop = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
      await exited;
      clearTimeout(stop);
    },
  };
}
