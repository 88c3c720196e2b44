// The webhook sender the service uses (ADR 0014): the same contract as `createWebhookSender`,
// with the requests made in a worker thread (sender-thread.ts). Under load a webhook POST
// cost the service's event loop about as much as all the database work of its delivery;
// in a thread it runs on another core while the loop claims, loads and records.
//
// Requests of one turn of the event loop go to the thread in one message, and the thread
// answers with the outcomes of one of its turns, so a busy stream of deliveries costs a
// message per batch rather than per delivery. The thread starts with the first request it
// gets, and again after it exited: requests it had are answered with an error (and retried as any
// failed attempt is), those not yet handed over go to the new thread.
//
// A lone request — nothing else in flight — is sent from the caller's thread instead: the hop
// to the sender thread and back cost a lone delivery about 0.35 ms of its latency (median of
// paired runs), and with nothing else to do the loop has the CPU to spare. At most one
// request at a time is sent that way.
import { Worker } from "node:worker_threads";
import {
  createWebhookSender,
  type StopSignal,
  type WebhookOutcome,
  type WebhookRequest,
  type WebhookSender,
  type WebhookSenderOptions,
} from "./webhook-sender.js";

/** A request as it crosses to the thread: without the signal, which cannot be sent. */
export type ThreadRequest = Omit<WebhookRequest, "signal">;
export type ToSenderThread = { kind: "send"; requests: Array<[number, ThreadRequest]> } | { kind: "cancel"; ids: number[] };
export type FromSenderThread = Array<[number, WebhookOutcome]>;

const SHUTDOWN_ERROR = "delivery interrupted by shutdown";

interface Pending {
  resolve: (outcome: WebhookOutcome) => void;
  started: number;
  signal: StopSignal | undefined;
  /** Handed to the current thread (false: still in the outbox). */
  sent: boolean;
}

/** Ids of requests by the signal that stops them, with the one listener each signal gets. */
interface Watched {
  ids: Set<number>;
  onAbort: () => void;
}

export interface ThreadedSenderOptions extends WebhookSenderOptions {
  /** The thread's module (tests use stand-ins). */
  threadModule?: URL;
  /** Whether a lone request is sent from the caller's thread (default true; tests of the sender thread turn it off). */
  directWhenIdle?: boolean;
}

export function createThreadedWebhookSender(options: ThreadedSenderOptions): WebhookSender {
  const threadModule = options.threadModule ?? new URL("./sender-thread.js", import.meta.url);
  const workerData: WebhookSenderOptions = { allowPrivateEgress: options.allowPrivateEgress, timeoutMs: options.timeoutMs };
  const pending = new Map<number, Pending>();
  const watched = new Map<StopSignal, Watched>();
  let thread: Worker | undefined;
  let outbox: Array<[number, ThreadRequest]> = [];
  let flushScheduled = false;
  let nextId = 1;
  let closed = false;
  const direct = options.directWhenIdle === false ? undefined : createWebhookSender(workerData);
  let directInFlight = 0;

  function startThread(): Worker {
    const started = new Worker(threadModule, { workerData });
    // A thread must not keep the process alive; the service closes it when it stops.
    started.unref();
    started.on("message", (outcomes: FromSenderThread) => {
      for (const [id, outcome] of outcomes) settle(id, outcome);
    });
    // An uncaught error in the thread ends it; 'exit' follows and answers its requests.
    started.on("error", () => undefined);
    started.on("exit", () => {
      if (thread === started) thread = undefined;
      for (const [id, entry] of pending) {
        if (entry.sent)
          settle(id, {
            durationMs: Math.round(performance.now() - entry.started),
            error: closed ? SHUTDOWN_ERROR : "the webhook sender thread exited",
          });
      }
      if (outbox.length > 0 && !closed) scheduleFlush();
    });
    return started;
  }

  function scheduleFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flush);
  }

  function flush(): void {
    flushScheduled = false;
    if (outbox.length === 0 || closed) return;
    const requests = outbox;
    outbox = [];
    thread ??= startThread();
    for (const [id] of requests) pending.get(id)!.sent = true;
    thread.postMessage({ kind: "send", requests } satisfies ToSenderThread);
  }

  function settle(id: number, outcome: WebhookOutcome): void {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    if (entry.signal) unwatch(entry.signal, id);
    entry.resolve(outcome);
  }

  function watch(signal: StopSignal, id: number): void {
    let entry = watched.get(signal);
    if (!entry) {
      const ids = new Set<number>();
      const onAbort = () => cancel([...ids]);
      entry = { ids, onAbort };
      watched.set(signal, entry);
      signal.addEventListener("abort", onAbort, { once: true });
    }
    entry.ids.add(id);
  }

  function unwatch(signal: StopSignal, id: number): void {
    const entry = watched.get(signal);
    if (!entry) return;
    entry.ids.delete(id);
    if (entry.ids.size > 0) return;
    signal.removeEventListener("abort", entry.onAbort);
    watched.delete(signal);
  }

  /** Shutdown: requests not yet handed over end here; the thread stops the others. */
  function cancel(ids: number[]): void {
    const inThread: number[] = [];
    const notSent = new Set<number>();
    for (const id of ids) {
      const entry = pending.get(id);
      if (entry?.sent) inThread.push(id);
      else if (entry) notSent.add(id);
    }
    if (notSent.size > 0) {
      outbox = outbox.filter(([queued]) => !notSent.has(queued));
      for (const id of notSent) settle(id, { durationMs: 0, error: SHUTDOWN_ERROR });
    }
    if (inThread.length > 0) thread?.postMessage({ kind: "cancel", ids: inThread } satisfies ToSenderThread);
  }

  return {
    send(request) {
      if (closed) return Promise.resolve({ durationMs: 0, error: "the webhook sender is closed" });
      if (request.signal?.aborted) return Promise.resolve({ durationMs: 0, error: SHUTDOWN_ERROR });
      if (direct && directInFlight === 0 && pending.size === 0) {
        directInFlight++;
        return direct.send(request).finally(() => directInFlight--);
      }
      const id = nextId++;
      const { signal, ...toSend } = request;
      return new Promise<WebhookOutcome>((resolve) => {
        pending.set(id, { resolve, started: performance.now(), signal, sent: false });
        if (signal) watch(signal, id);
        outbox.push([id, toSend]);
        scheduleFlush();
      });
    },
    close() {
      if (closed) return;
      closed = true;
      direct?.close();
      for (const [id, entry] of pending) if (!entry.sent) settle(id, { durationMs: 0, error: SHUTDOWN_ERROR });
      outbox = [];
      // Requests in the thread are answered by its exit.
      void thread?.terminate();
    },
  };
}
