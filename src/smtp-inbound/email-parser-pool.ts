// Inbound messages are parsed in worker threads (parse-thread.ts), not on the service's event
// loop: parsing a message of a few megabytes is seconds of CPU (ADR 0034). A small pool — one
// thread, two on hosts with four cores or more — leaves a core to the loop. Messages wait in a
// bounded queue; past it `parse` refuses at once (ParserBusyError, a 451 so the sender comes
// back later) rather than holding ever more messages in memory. A parse that takes longer
// than `timeoutMs` ends its thread (a new one starts for the next message) and fails, as does
// one whose thread dies.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { EmailEvent } from "../domain/inbound-email/email-event.js";
import { ServiceError } from "../lib/errors.js";

export type ToParseThread = { id: number; raw: Uint8Array; maxBytes: number };
export type FromParseThread = { id: number; threadId: number } & ({ event: EmailEvent } | { error: { message: string; invalid: boolean } });

export interface EmailParser {
  /** The message as mailparser reads it (`parseEmail`), parsed in a thread. */
  parse(raw: Buffer, maxBytes: number): Promise<EmailEvent>;
  close(): Promise<void>;
}

export interface EmailParserOptions {
  threads?: number;
  /** Messages waiting for a thread; past it ParserBusyError. */
  maxQueued?: number;
  timeoutMs?: number;
  /** Told the thread each message was parsed in (tests). */
  onParsed?: (threadId: number) => void;
  /** The thread's module (tests use stand-ins). */
  threadModule?: URL;
}

/** Every thread busy and the queue full: try again later. */
export class ParserBusyError extends Error {
  constructor() {
    super("too many messages waiting to be parsed");
    this.name = "ParserBusyError";
  }
}

const DEFAULT_MAX_QUEUED = 32;
const DEFAULT_TIMEOUT_MS = 30_000;

interface Job {
  id: number;
  raw: Buffer;
  maxBytes: number;
  resolve: (event: EmailEvent) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

export function createEmailParserPool(options: EmailParserOptions = {}): EmailParser {
  const threads = options.threads ?? Math.min(2, Math.max(1, availableParallelism() - 2));
  const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const threadModule = options.threadModule ?? new URL("./parse-thread.js", import.meta.url);
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  function startSlot(): Slot {
    const worker = new Worker(threadModule);
    // A thread must not keep the process alive; close() ends it when the service stops.
    worker.unref();
    const slot: Slot = { worker, job: undefined, timer: undefined };
    worker.on("message", (reply: FromParseThread) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      options.onParsed?.(reply.threadId);
      if ("event" in reply) job.resolve(reply.event);
      else job.reject(reply.error.invalid ? new ServiceError("VALIDATION", reply.error.message) : new Error(reply.error.message));
      dispatch();
    });
    // An uncaught error ends the thread; 'exit' follows.
    worker.on("error", () => undefined);
    worker.on("exit", () => {
      slots.splice(slots.indexOf(slot), 1);
      const job = slot.job;
      finish(slot);
      job?.reject(new Error(closed ? "the e-mail parser was closed" : "the e-mail parser thread exited"));
      if (!closed) dispatch();
    });
    slots.push(slot);
    return slot;
  }

  function finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
  }

  function dispatch(): void {
    while (queue.length > 0 && !closed) {
      const slot = slots.find((s) => !s.job) ?? (slots.length < threads ? startSlot() : undefined);
      if (!slot) return;
      const job = queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        // Its 'exit' fails the job; a new thread takes the next one.
        job.reject(new Error(`parsing the message took longer than ${timeoutMs} ms`));
        void slot.worker.terminate();
      }, timeoutMs);
      slot.timer.unref();
      slot.worker.postMessage({ id: job.id, raw: job.raw, maxBytes: job.maxBytes } satisfies ToParseThread);
    }
  }

  return {
    parse(raw, maxBytes) {
      if (closed) return Promise.reject(new Error("the e-mail parser was closed"));
      if (queue.length >= maxQueued) return Promise.reject(new ParserBusyError());
      return new Promise<EmailEvent>((resolve, reject) => {
        queue.push({ id: nextId++, raw, maxBytes, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error("the e-mail parser was closed"));
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}
