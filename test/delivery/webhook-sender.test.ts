// The webhook sender on its own (no database): the overall timeout, the response excerpt cap
// against an endless body, no redirects, Retry-After, shutdown, and connections kept alive
// between deliveries to one endpoint — for the sender itself and for the service's sender,
// which makes the same requests in a worker thread.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { createThreadedWebhookSender } from "../../src/delivery-worker/threaded-webhook-sender.js";
import {
  RESPONSE_EXCERPT_BYTES,
  createWebhookSender,
  type WebhookRequest,
  type WebhookSender,
  type WebhookSenderOptions,
} from "../../src/delivery-worker/webhook-sender.js";
import { webhookRequest } from "./webhook-request.js";

const implementations: Array<[string, (options: WebhookSenderOptions) => WebhookSender]> = [
  ["in this thread", createWebhookSender],
  ["in a worker thread, lone requests directly", createThreadedWebhookSender],
  ["in a worker thread, every request", (options) => createThreadedWebhookSender({ ...options, directWhenIdle: false })],
];

for (const [where, createSender] of implementations)
  describe(`webhook sender, ${where}`, () => {
    let server: http.Server;
    let base = "";
    const sockets = new Set<Socket>();
    const connections: Socket[] = [];

    before(async () => {
      server = http.createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          if (req.url === "/hang") return; // never answers
          if (req.url === "/endless") {
            res.writeHead(200, { "content-type": "text/plain" });
            const chunk = "x".repeat(1024);
            const pump = () => {
              while (!res.destroyed && res.write(chunk));
              if (!res.destroyed) res.once("drain", pump);
            };
            return pump();
          }
          if (req.url === "/redirect") return res.writeHead(302, { location: `${base}/ok` }).end();
          if (req.url === "/busy") return res.writeHead(503, { "retry-after": "7" }).end("busy");
          const status = /^\/status\/(\d{3})$/.exec(req.url ?? "");
          if (status) return res.writeHead(Number(status[1])).end(`answered ${status[1]}`);
          res.writeHead(200).end("ok");
        });
      });
      server.on("connection", (socket) => {
        sockets.add(socket);
        connections.push(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const request = (path: string, extra: Partial<WebhookRequest> = {}) => webhookRequest(base + path, extra);

    it("gives up after its timeout when the endpoint never answers", async () => {
      const sender = createSender({ allowPrivateEgress: true, timeoutMs: 300 });
      const started = Date.now();
      const outcome = await sender.send(request("/hang"));
      sender.close();
      assert.equal(outcome.status, undefined);
      assert.match(outcome.error ?? "", /timed out/);
      assert.ok(Date.now() - started < 5000);
    });

    it("times out an endless body too, and keeps only the start of a long one", async () => {
      const sender = createSender({ allowPrivateEgress: true, timeoutMs: 2000 });
      const outcome = await sender.send(request("/endless"));
      sender.close();
      assert.equal(outcome.status, 200);
      assert.equal(outcome.responseExcerpt?.length, RESPONSE_EXCERPT_BYTES);
      assert.ok(outcome.durationMs < 2000, "stops reading once the excerpt is full");
    });

    it("does not follow redirects and reads Retry-After", async () => {
      const sender = createSender({ allowPrivateEgress: true });
      const redirected = await sender.send(request("/redirect"));
      const busy = await sender.send(request("/busy"));
      sender.close();
      assert.equal(redirected.status, 302);
      assert.equal(busy.status, 503);
      assert.equal(busy.retryAfterMs, 7000);
      assert.equal(busy.responseExcerpt, "busy");
    });

    it("stops at shutdown without waiting for the endpoint", async () => {
      const sender = createSender({ allowPrivateEgress: true });
      const shutdown = new AbortController();
      const pending = sender.send(request("/hang", { signal: shutdown.signal }));
      setTimeout(() => shutdown.abort(), 100);
      const outcome = await pending;
      sender.close();
      assert.equal(outcome.status, undefined);
      assert.match(outcome.error ?? "", /shutdown/);
    });

    it("reuses connections to an endpoint between deliveries", async () => {
      const sender = createSender({ allowPrivateEgress: true });
      const before = connections.length;
      for (let i = 0; i < 20; i++) assert.equal((await sender.send(request("/ok"))).status, 200);
      sender.close();
      // undici may open a second connection while it hands the first back to its pool.
      assert.ok(connections.length - before <= 2, `${connections.length - before} connections for 20 deliveries`);
    });

    it("refuses loopback without SLUICE_ALLOW_PRIVATE_EGRESS, by literal and by name", async () => {
      const sender = createSender({ allowPrivateEgress: false });
      const port = new URL(base).port;
      const before = connections.length;
      const literal = await sender.send(request("", { url: `http://127.0.0.1:${port}/ok` }));
      const named = await sender.send(request("", { url: `http://localhost:${port}/ok` }));
      sender.close();
      assert.match(literal.error ?? "", /refused/);
      assert.match(named.error ?? "", /refused/);
      assert.equal(connections.length, before);
    });

    it("refuses a URL it cannot send to every time, and sends to each good URL its own path", async () => {
      const sender = createSender({ allowPrivateEgress: true });
      const before = connections.length;
      for (let i = 0; i < 2; i++) {
        // The second time the URL's parse and checks are remembered (webhook-sender.ts: TargetCache).
        assert.equal((await sender.send(request("", { url: "not a url" }))).error, "invalid webhook url");
        assert.equal((await sender.send(request("", { url: "ftp://127.0.0.1/x" }))).error, "unsupported protocol ftp:");
      }
      assert.equal(connections.length, before);
      const first = await sender.send(request("", { url: `${base}/ok?n=1` }));
      const second = await sender.send(request("", { url: `${base}/status/202` }));
      sender.close();
      assert.equal(first.status, 200);
      assert.equal(second.status, 202);
    });

    it("gives every one of many concurrent requests its own outcome", async () => {
      const sender = createSender({ allowPrivateEgress: true });
      const statuses = Array.from({ length: 300 }, (_, i) => [200, 201, 404, 500, 503][i % 5]!);
      const outcomes = await Promise.all(statuses.map((status) => sender.send(request(`/status/${status}`))));
      sender.close();
      assert.deepEqual(
        outcomes.map((outcome) => [outcome.status, outcome.responseExcerpt]),
        statuses.map((status) => [status, `answered ${status}`]),
      );
    });

    it("answers requests made after it closed without sending them", async () => {
      const sender = createSender({ allowPrivateEgress: true });
      sender.close();
      const before = connections.length;
      const outcome = await sender.send(request("/ok"));
      assert.equal(outcome.status, undefined);
      assert.ok(outcome.error);
      assert.equal(connections.length, before);
    });
  });
