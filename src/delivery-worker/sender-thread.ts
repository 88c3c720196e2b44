// The webhook sender's own thread (ADR 0014): it makes the HTTP requests of deliveries —
// signing, undici, sockets, timeouts, the egress guard — so that their CPU is spent beside
// the service's event loop instead of on it. It holds no state beyond requests in flight.
import { parentPort, workerData } from "node:worker_threads";
import type { FromSenderThread, ToSenderThread } from "./threaded-webhook-sender.js";
import { createWebhookSender, type StopSignal, type WebhookOutcome, type WebhookSenderOptions } from "./webhook-sender.js";

const port = parentPort;
if (!port) throw new Error("sender-thread runs only as a worker thread");

const sender = createWebhookSender(workerData as WebhookSenderOptions);
/** Requests in flight: id → how to stop it at the service's shutdown. */
const inFlight = new Map<number, RequestStop>();

// Outcomes finished in one turn of this thread's loop go back in one message.
let outbox: FromSenderThread | undefined;
function reply(id: number, outcome: WebhookOutcome): void {
  if (!outbox) {
    outbox = [];
    setImmediate(() => {
      const done = outbox!;
      outbox = undefined;
      port!.postMessage(done);
    });
  }
  outbox.push([id, outcome]);
}

port.on("message", (message: ToSenderThread) => {
  if (message.kind === "cancel") {
    for (const id of message.ids) inFlight.get(id)?.abort();
    return;
  }
  for (const [id, request] of message.requests) {
    const stop = new RequestStop();
    inFlight.set(id, stop);
    // The request is this thread's own copy (structured clone): it takes the signal as it is.
    void sender.send(Object.assign(request, { signal: stop })).then((outcome) => {
      inFlight.delete(id);
      reply(id, outcome);
    });
  }
});

/** Stops one request; its exchange is the only listener (webhook-sender.ts: StopSignal). */
class RequestStop implements StopSignal {
  aborted = false;
  private listener: (() => void) | undefined;

  addEventListener(_type: "abort", listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}
