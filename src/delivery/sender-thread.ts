// The webhook sender's own thread (ADR 0014): it makes the HTTP requests of deliveries —
// signing, undici, sockets, timeouts, the egress guard — so that their CPU is spent beside
// the service's event loop instead of on it. It holds no state beyond requests in flight.
import { parentPort, workerData } from "node:worker_threads";
import type { FromSenderThread, ToSenderThread } from "./threaded-webhook-sender.js";
import { createWebhookSender, type WebhookOutcome, type WebhookSenderOptions } from "./webhook-sender.js";

const port = parentPort;
if (!port) throw new Error("sender-thread runs only as a worker thread");

const sender = createWebhookSender(workerData as WebhookSenderOptions);
/** Requests in flight: id → how to stop it at the service's shutdown. */
const inFlight = new Map<number, AbortController>();

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
    const stop = new AbortController();
    inFlight.set(id, stop);
    void sender.send({ ...request, signal: stop.signal }).then((outcome) => {
      inFlight.delete(id);
      reply(id, outcome);
    });
  }
});
