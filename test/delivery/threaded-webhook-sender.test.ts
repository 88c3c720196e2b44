// What only the threaded sender does: it outlives its thread (requests the thread had are
// answered with an error, later ones go to a new thread), and it answers at once at shutdown,
// whether a request was already in the thread or still waiting to be handed over.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createThreadedWebhookSender } from "../../src/delivery-worker/threaded-webhook-sender.js";
import type { WebhookRequest } from "../../src/delivery-worker/webhook-sender.js";
import { webhookRequest } from "./webhook-request.js";

describe("threaded webhook sender", () => {
  let server: http.Server;
  let base = "";
  let received = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received++;
        if (req.url === "/hang") return; // never answers
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const request = (path: string, extra: Partial<WebhookRequest> = {}) => webhookRequest(base + path, extra);

  it("answers the requests of a thread that exited with an error, and sends later ones from a new thread", async () => {
    const sender = createThreadedWebhookSender({
      allowPrivateEgress: true,
      directWhenIdle: false,
      threadModule: new URL("./fixtures/exiting-sender-thread.js", import.meta.url),
    });
    const first = await sender.send(request("/ok"));
    assert.equal(first.status, 200);
    const hangingReceived = received + 1;
    const hanging = sender.send(request("/hang"));
    while (received < hangingReceived) await new Promise((resolve) => setTimeout(resolve, 10)); // the hanging one is in the thread
    const exiting = await sender.send(request("/exit-thread"));
    assert.match(exiting.error ?? "", /thread exited/);
    assert.match((await hanging).error ?? "", /thread exited/);
    const later = await sender.send(request("/ok"));
    sender.close();
    assert.equal(later.status, 200);
  });

  it("answers at shutdown both a request in the thread and one not yet handed over", async () => {
    const sender = createThreadedWebhookSender({ allowPrivateEgress: true, directWhenIdle: false });
    const shutdown = new AbortController();
    const receivedBefore = received + 1;
    const inThread = sender.send(request("/hang", { signal: shutdown.signal }));
    // The hanging request is in the thread once the server has it (a fixed wait is not enough on a busy machine).
    while (received < receivedBefore) await new Promise((resolve) => setTimeout(resolve, 10));
    const waiting = sender.send(request("/ok", { signal: shutdown.signal }));
    shutdown.abort(); // in the same turn: the second request never reaches the thread
    const started = Date.now();
    const outcomes = await Promise.all([inThread, waiting]);
    sender.close();
    for (const outcome of outcomes) {
      assert.equal(outcome.status, undefined);
      assert.match(outcome.error ?? "", /shutdown/);
    }
    assert.ok(Date.now() - started < 2000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(received, receivedBefore, "the request not handed over was never sent");
  });

  it("answers a request in flight when it is closed", async () => {
    const sender = createThreadedWebhookSender({ allowPrivateEgress: true, directWhenIdle: false });
    const pending = sender.send(request("/hang"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    sender.close();
    const outcome = await pending;
    assert.equal(outcome.status, undefined);
    assert.match(outcome.error ?? "", /shutdown/);
  });

  it("sends a lone request itself and the others through the thread", async () => {
    // The stand-in thread ends at /exit-thread: only a request that went through it fails so.
    const sender = createThreadedWebhookSender({
      allowPrivateEgress: true,
      threadModule: new URL("./fixtures/exiting-sender-thread.js", import.meta.url),
    });
    const lone = sender.send(request("/exit-thread"));
    const second = sender.send(request("/exit-thread"));
    const [loneOutcome, secondOutcome] = await Promise.all([lone, second]);
    sender.close();
    assert.equal(loneOutcome.status, 200, "the lone request never reached the thread");
    assert.match(secondOutcome.error ?? "", /thread exited/, "the one sent meanwhile went through the thread");
  });
});
