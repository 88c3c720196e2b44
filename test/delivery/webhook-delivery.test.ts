// Fan-out and webhook delivery on each dialect, against a loopback receiver: matching rules,
// Standard Webhooks signatures (checked with the `standardwebhooks` package), retries,
// Retry-After, 410, redirects, slow-endpoint isolation, loop guard and listener handlers.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { PER_LISTENER_CONCURRENCY } from "../../src/delivery-worker/delivery-worker.js";
import { WEBHOOK_TIMEOUT_MS } from "../../src/delivery-worker/webhook-sender.js";
import { fanOut, type FanOutOptions } from "../../src/domain/deliveries/fan-out.js";
import { MAX_DELIVERY_HOPS, withDeliveryHops } from "../../src/domain/deliveries/hops.js";
import type { ListenerDelivery } from "../../src/domain/deliveries/listener-handlers.js";
import type { StoredEvent } from "../../src/domain/events/stored-event.js";
import { newId } from "../../src/lib/ids.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";

let sequence = 0;

for (const dialect of DIALECTS) {
  describe(`webhook delivery [${dialect}]`, () => {
    let app: TestApp;
    let receiver: Receiver;
    let account: Account;

    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, { allowPrivateEgress: true, webhookRetryScheduleSeconds: [0.05, 0.05, 0.05] });
      account = await app.newAccount();
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    const db = () => app.sluice.services.ctx.db;

    async function emit(
      userId: string,
      emitterId: string,
      stream: string,
      event: unknown,
      options?: Omit<FanOutOptions, "now">,
    ): Promise<StoredEvent> {
      const now = Date.now();
      const stored: StoredEvent = { id: `${now}-${sequence++}`, userId, emitterId, stream, event, metadata: {}, indexedAtMs: now };
      await db()
        .transaction()
        .execute((trx) => fanOut(trx, [stored], { now, ...options }));
      return stored;
    }

    async function subscribe(userId: string, emitterId: string, listenerId: string, eventName = ""): Promise<string> {
      const id = newId("sub");
      await db()
        .insertInto("subscriptions")
        .values({ id, user_id: userId, emitter_id: emitterId, listener_id: listenerId, event_name: eventName, created_at: Date.now() })
        .execute();
      return id;
    }

    async function webhook(owner: Account, path: string): Promise<{ id: string; secret: string; url: string }> {
      const url = receiver.url + path;
      const res = await owner.api.post("/webhooks", undefined, { url });
      assert.equal(res.status, 200);
      return { id: res.body.data.id, secret: res.body.data.signing_secret, url };
    }

    const deliveriesTo = (listenerId: string) => db().selectFrom("deliveries").selectAll().where("listener_id", "=", listenerId).execute();

    it("posts the event with Standard Webhooks headers that verify with an independent library", async () => {
      const hook = await webhook(account, "/signed");
      const emitter = newId("dc");
      await subscribe(account.id, emitter, hook.id);
      const event = await emit(account.id, emitter, "", { hello: "wörld", n: [1, 2, 3] });
      await waitFor(() => receiver.at("/signed").length === 1);
      const got = receiver.at("/signed")[0]!;
      assert.equal(got.headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(got.body), { hello: "wörld", n: [1, 2, 3] });
      assert.equal(got.headers["x-sluice-emitter-id"], emitter);
      assert.equal(got.headers["x-sluice-event-name"], "");
      assert.equal(got.headers["x-sluice-event-id"], event.id);
      const headers = {
        "webhook-id": String(got.headers["webhook-id"]),
        "webhook-timestamp": String(got.headers["webhook-timestamp"]),
        "webhook-signature": String(got.headers["webhook-signature"]),
      };
      assert.match(headers["webhook-signature"], /^v1,[A-Za-z0-9+/=]+$/);
      assert.deepEqual(new Webhook(hook.secret).verify(got.body, headers), { hello: "wörld", n: [1, 2, 3] });
      assert.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString("base64")}`).verify(got.body, headers));
      await waitFor(async () => (await deliveriesTo(hook.id))[0]?.status === "succeeded");
    });

    it("matches exact ids, same-account globs and streams ('' and 'default' = default stream)", async () => {
      const other = await app.newAccount();
      const source = newId("dc");
      const workflow = newId("p");
      const hooks = {
        exact: await webhook(account, "/m-exact"),
        sourceGlob: await webhook(account, "/m-dcglob"),
        workflowGlob: await webhook(account, "/m-pglob"),
        errors: await webhook(account, "/m-errors"),
        named: await webhook(account, "/m-named"),
        defaultName: await webhook(account, "/m-default"),
        foreign: await webhook(other, "/m-foreign"),
      };
      await subscribe(account.id, source, hooks.exact.id, "");
      await subscribe(account.id, "dc_*", hooks.sourceGlob.id, "default");
      await subscribe(account.id, "p_*", hooks.workflowGlob.id, "");
      await subscribe(account.id, source, hooks.errors.id, "$errors");
      await subscribe(account.id, source, hooks.named.id, "orders");
      await subscribe(account.id, source, hooks.defaultName.id, "default");
      await subscribe(other.id, "dc_*", hooks.foreign.id, "");
      // The exact id and the glob both match: still one delivery per event and listener.
      await subscribe(account.id, "dc_*", hooks.exact.id, "");

      await emit(account.id, source, "", { s: "default" });
      await emit(account.id, source, "$errors", { s: "errors" });
      await emit(account.id, source, "orders", { s: "orders" });
      await emit(account.id, workflow, "", { s: "workflow" });

      const bodies = async (id: string) => (await deliveriesTo(id)).map((d) => JSON.parse(d.event).s).sort();
      assert.deepEqual(await bodies(hooks.exact.id), ["default"]);
      assert.deepEqual(await bodies(hooks.sourceGlob.id), ["default"]);
      assert.deepEqual(await bodies(hooks.workflowGlob.id), ["workflow"]);
      assert.deepEqual(await bodies(hooks.errors.id), ["errors"]);
      assert.deepEqual(await bodies(hooks.named.id), ["orders"]);
      assert.deepEqual(await bodies(hooks.defaultName.id), ["default"]);
      assert.deepEqual(await bodies(hooks.foreign.id), []);
      await waitFor(() => receiver.at("/m-errors").length === 1 && receiver.at("/m-pglob").length === 1);
      assert.equal(receiver.at("/m-errors")[0]!.headers["x-sluice-event-name"], "$errors");
    });

    it("stops delivering when the subscription is deleted, and inactive webhooks receive nothing", async () => {
      const hook = await webhook(account, "/unsub");
      const emitter = newId("dc");
      const subId = await subscribe(account.id, emitter, hook.id);
      await emit(account.id, emitter, "", { n: 1 });
      await db().deleteFrom("subscriptions").where("id", "=", subId).execute();
      await emit(account.id, emitter, "", { n: 2 });
      assert.deepEqual(
        (await deliveriesTo(hook.id)).map((d) => JSON.parse(d.event).n),
        [1],
      );

      const inactive = await webhook(account, "/inactive");
      await subscribe(account.id, emitter, inactive.id);
      assert.equal((await account.api.put(`/webhooks/${inactive.id}`, { active: false })).status, 200);
      await emit(account.id, emitter, "", { n: 3 });
      assert.equal((await deliveriesTo(inactive.id)).length, 0);
      await waitFor(() => receiver.at("/unsub").length === 1);
      assert.equal(receiver.at("/inactive").length, 0);
    });

    it("keeps its own copy of the event and a stable webhook-id across retries, recording every attempt", async () => {
      receiver.on("/flaky", (_r, n) => (n < 3 ? { status: 500, body: `fail ${n}` } : { status: 204 }));
      const hook = await webhook(account, "/flaky");
      const emitter = newId("dc");
      await subscribe(account.id, emitter, hook.id);
      await emit(account.id, emitter, "", { retry: true });
      await waitFor(() => receiver.at("/flaky").length === 3);
      const ids = new Set(receiver.at("/flaky").map((r) => r.headers["webhook-id"]));
      assert.equal(ids.size, 1);
      await waitFor(async () => (await deliveriesTo(hook.id))[0]?.status === "succeeded");
      const [delivery] = await deliveriesTo(hook.id);
      assert.equal(delivery!.attempts, 3);
      assert.equal([...ids][0], delivery!.id);
      const attempts = await db()
        .selectFrom("delivery_attempts")
        .selectAll()
        .where("delivery_id", "=", delivery!.id)
        .orderBy("attempted_at")
        .execute();
      assert.deepEqual(
        attempts.map((a) => a.status_code),
        [500, 500, 204],
      );
      assert.equal(attempts[0]!.response_excerpt, "fail 1");
    });

    it("honours Retry-After over the schedule", async () => {
      receiver.on("/retry-after", (_r, n) => (n === 1 ? { status: 503, headers: { "retry-after": "1" } } : { status: 200 }));
      const hook = await webhook(account, "/retry-after");
      const emitter = newId("dc");
      await subscribe(account.id, emitter, hook.id);
      await emit(account.id, emitter, "", {});
      await waitFor(() => receiver.at("/retry-after").length === 2);
      const [first, second] = receiver.at("/retry-after");
      // The schedule says 50 ms; Retry-After says 1 s.
      assert.ok(second!.at - first!.at >= 900, `retried after ${second!.at - first!.at} ms`);
    });

    it("gives up after the schedule, marking the delivery failed", async () => {
      receiver.on("/dead", () => ({ status: 500 }));
      const hook = await webhook(account, "/dead");
      const emitter = newId("dc");
      await subscribe(account.id, emitter, hook.id);
      await emit(account.id, emitter, "", {});
      await waitFor(async () => (await deliveriesTo(hook.id))[0]?.status === "failed");
      assert.equal(receiver.at("/dead").length, 4); // first try + 3 retries
      assert.equal((await deliveriesTo(hook.id))[0]!.attempts, 4);
    });

    it("410 Gone disables the webhook; later events are not delivered", async () => {
      receiver.on("/gone", () => ({ status: 410 }));
      const hook = await webhook(account, "/gone");
      const emitter = newId("dc");
      await subscribe(account.id, emitter, hook.id);
      await emit(account.id, emitter, "", { n: 1 });
      await waitFor(async () => (await deliveriesTo(hook.id))[0]?.status === "failed");
      assert.equal(receiver.at("/gone").length, 1);
      assert.equal((await account.api.get(`/webhooks/${hook.id}`)).body.data.active, false);
      await emit(account.id, emitter, "", { n: 2 });
      assert.equal((await deliveriesTo(hook.id)).length, 1);
    });

    it("does not follow redirects: a 3xx is a failed attempt", async () => {
      receiver.on("/redirect", () => ({ status: 302, headers: { location: `${receiver.url}/redirect-target` } }));
      const hook = await webhook(account, "/redirect");
      const emitter = newId("dc");
      await subscribe(account.id, emitter, hook.id);
      await emit(account.id, emitter, "", {});
      await waitFor(async () => (await deliveriesTo(hook.id))[0]?.status === "failed");
      assert.equal(receiver.at("/redirect-target").length, 0);
      const attempts = await db()
        .selectFrom("delivery_attempts")
        .select("status_code")
        .where("delivery_id", "=", (await deliveriesTo(hook.id))[0]!.id)
        .execute();
      assert.ok(attempts.length >= 1 && attempts.every((a) => a.status_code === 302));
    });

    it("a hanging endpoint does not delay deliveries to another endpoint", async () => {
      receiver.on("/hang", () => ({ status: 200, hang: true }));
      const slow = await webhook(account, "/hang");
      const fast = await webhook(account, "/fast");
      const slowEmitter = newId("dc");
      const fastEmitter = newId("dc");
      await subscribe(account.id, slowEmitter, slow.id);
      await subscribe(account.id, fastEmitter, fast.id);
      for (let i = 0; i < PER_LISTENER_CONCURRENCY + 8; i++) await emit(account.id, slowEmitter, "", { i });
      await waitFor(() => receiver.at("/hang").length >= 1);
      // The property, whatever the machine's speed: every fast delivery arrives while the first
      // hanging request is still open, i.e. before its own timeout could have freed anything.
      // Were fast deliveries queued behind hanging ones, they could only pass after that timeout.
      const firstHangTimesOut = receiver.at("/hang")[0]!.at + WEBHOOK_TIMEOUT_MS;
      for (let i = 0; i < 20; i++) await emit(account.id, fastEmitter, "", { i });
      await waitFor(() => receiver.at("/fast").length === 20, WEBHOOK_TIMEOUT_MS);
      assert.ok(
        Date.now() < firstHangTimesOut,
        `fast deliveries took until ${Date.now() - firstHangTimesOut} ms past the hanging request's timeout`,
      );
      // The per-endpoint limit keeps the hanging endpoint to its share of requests at a time.
      await waitFor(() => receiver.at("/hang").length >= PER_LISTENER_CONCURRENCY, WEBHOOK_TIMEOUT_MS);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.at("/hang").length, PER_LISTENER_CONCURRENCY, "requests in flight to the hanging endpoint");
    });

    it("stops fan-out past the hop limit and carries hops into listener handlers", async () => {
      const hook = await webhook(account, "/hops");
      const emitter = newId("dc");
      await subscribe(account.id, emitter, hook.id);
      await emit(account.id, emitter, "", { n: "too far" }, { hops: MAX_DELIVERY_HOPS });
      await withDeliveryHops(MAX_DELIVERY_HOPS - 1, () => emit(account.id, emitter, "", { n: "last hop" }));
      const rows = await deliveriesTo(hook.id);
      assert.deepEqual(
        rows.map((r) => [JSON.parse(r.event).n, r.hops]),
        [["last hop", MAX_DELIVERY_HOPS - 1]],
      );

      const calls: ListenerDelivery[] = [];
      let failOnce = true;
      app.sluice.listenerHandlers.set("workflow", async (delivery) => {
        if (failOnce) {
          failOnce = false;
          throw new Error("transient");
        }
        calls.push(delivery);
        // Events stored by the handler travel one hop further.
        await emit(account.id, delivery.listenerId, "", { echoed: true });
      });
      const workflow = newId("p");
      const downstream = await webhook(account, "/hops-downstream");
      await subscribe(account.id, emitter, workflow);
      await subscribe(account.id, workflow, downstream.id);
      const event = await withDeliveryHops(2, () => emit(account.id, emitter, "", { to: "workflow" }));
      await waitFor(() => calls.length === 1);
      const { complete, ...delivered } = calls[0]!;
      assert.equal(typeof complete, "function");
      assert.deepEqual(delivered, {
        deliveryId: calls[0]!.deliveryId,
        userId: account.id,
        listenerId: workflow,
        emitterId: emitter,
        eventName: "",
        eventId: event.id,
        event: { to: "workflow" },
        hops: 2,
      });
      await waitFor(async () => (await deliveriesTo(downstream.id)).length === 1);
      assert.equal((await deliveriesTo(downstream.id))[0]!.hops, 3);
      await waitFor(async () => (await deliveriesTo(workflow))[0]?.status === "succeeded");
      assert.equal((await deliveriesTo(workflow))[0]!.attempts, 2);
    });
  });
}
