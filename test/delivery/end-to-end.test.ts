// End to end on each dialect: an HTTP source emits, a subscription delivers to a loopback
// webhook (signed) and to another source; a dead webhook's exhausted delivery is reported on
// the emitter's $errors stream.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";
import { createSource, summaries } from "../fixtures/components/sources/helpers.js";

// Emits the request body on the default stream.
const HTTP_SOURCE = `export default {
  name: "e2e http", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body, { summary: "from http" }); },
};`;

// Emits what it was delivered, wrapped, so the test can see the delivery ran it.
const RELAY_SOURCE = `export default {
  name: "e2e relay", version: "0.0.1",
  async run(event) { this.$emit({ relayed: event }); },
};`;

for (const dialect of DIALECTS) {
  describe(`end-to-end delivery [${dialect}]`, () => {
    let app: TestApp;
    let receiver: Receiver;
    let account: Account;

    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, { allowPrivateEgress: true, webhookRetryScheduleSeconds: [0.05] });
      account = await app.newAccount({ plan: "paid" });
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    it("HTTP source → subscription → signed webhook and a relay source", async () => {
      const source = await createSource(account.api, { component_code: HTTP_SOURCE });
      const relay = await createSource(account.api, { component_code: RELAY_SOURCE });
      const hook = (await account.api.post("/webhooks", undefined, { url: `${receiver.url}/e2e` })).body.data;
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: source.id, listener_id: hook.id })).status, 200);
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: source.id, listener_id: relay.id })).status, 200);

      const endpoint = source.configured_props.http.endpoint_url;
      for (let n = 0; n < 5; n++) {
        const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ n }) });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
      await waitFor(() => receiver.at("/e2e").length === 5, 15_000);
      const got = receiver.at("/e2e");
      assert.deepEqual(got.map((r) => JSON.parse(r.body).n).sort(), [0, 1, 2, 3, 4]);
      for (const r of got) {
        assert.equal(r.headers["x-sluice-emitter-id"], source.id);
        const headers = {
          "webhook-id": String(r.headers["webhook-id"]),
          "webhook-timestamp": String(r.headers["webhook-timestamp"]),
          "webhook-signature": String(r.headers["webhook-signature"]),
        };
        new Webhook(hook.signing_secret).verify(r.body, headers);
      }
      const relayed = await (async () => {
        let found: any[] = [];
        await waitFor(async () => (found = await summaries(account.api, relay.id)).length === 5, 15_000);
        return found;
      })();
      assert.deepEqual(relayed.map((e) => e.event.relayed.n).sort(), [0, 1, 2, 3, 4]);
      // The relay source completed each delivery in its own transaction: one attempt each.
      const db = app.sluice.services.ctx.db;
      await waitFor(
        async () =>
          (
            await db
              .selectFrom("deliveries")
              .select("status")
              .where("listener_id", "=", relay.id)
              .where("status", "=", "succeeded")
              .execute()
          ).length === 5,
      );
      const attempts = await db
        .selectFrom("delivery_attempts")
        .innerJoin("deliveries", "deliveries.id", "delivery_attempts.delivery_id")
        .select("deliveries.id")
        .where("deliveries.listener_id", "=", relay.id)
        .execute();
      assert.equal(attempts.length, 5);
      // Finished jobs are deleted in groups just after their handlers return.
      await waitFor(async () => (await db.selectFrom("jobs").select("id").where("type", "=", "delivery").execute()).length === 0);
    });

    it("an auto-subscription delivers events of sources created after it, not of older ones", async () => {
      const older = await createSource(account.api, { component_code: HTTP_SOURCE });
      const hook = (await account.api.post("/webhooks", undefined, { url: `${receiver.url}/auto` })).body.data;
      assert.equal(
        (await account.api.post("/auto_subscriptions", undefined, { event_type: "emit", listener_id: hook.id, event_name: "" })).status,
        200,
      );
      const newer = await createSource(account.api, { component_code: HTTP_SOURCE });
      for (const [source, label] of [
        [older, "older"],
        [newer, "newer"],
      ] as const) {
        const res = await fetch(source.configured_props.http.endpoint_url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ label }),
        });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
      await waitFor(() => receiver.at("/auto").length >= 1, 15_000);
      // The older source's event was stored (so it had its chance to be delivered) before we look.
      await waitFor(async () => (await summaries(account.api, older.id)).length === 1, 15_000);
      await waitFor(async () => (await summaries(account.api, newer.id)).length === 1, 15_000);
      assert.deepEqual(
        receiver.at("/auto").map((r) => JSON.parse(r.body).label),
        ["newer"],
      );
      const deliveries = await app.sluice.services.ctx.db
        .selectFrom("deliveries")
        .select("emitter_id")
        .where("listener_id", "=", hook.id)
        .execute();
      assert.deepEqual(
        deliveries.map((d) => d.emitter_id),
        [newer.id],
      );
    });

    it("an exhausted webhook delivery is reported on the emitter's $errors stream", async () => {
      receiver.on("/down", () => ({ status: 503, body: "down for maintenance" }));
      const source = await createSource(account.api, { component_code: HTTP_SOURCE });
      const hook = (await account.api.post("/webhooks", undefined, { url: `${receiver.url}/down` })).body.data;
      await account.api.post("/subscriptions", undefined, { emitter_id: source.id, listener_id: hook.id });
      const res = await fetch(source.configured_props.http.endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ doomed: true }),
      });
      assert.equal(res.status, 200);
      let errors: any[] = [];
      await waitFor(
        async () => (errors = await summaries(account.api, source.id, { event_name: "$errors", expand: "event" })).length === 1,
        15_000,
      );
      const report = errors[0].event;
      assert.equal(report.error.name, "DeliveryFailed");
      assert.match(report.error.message, new RegExp(hook.id));
      assert.deepEqual(report.original_event, { doomed: true });
      assert.equal(report.delivery.attempts, 2);
      assert.equal(report.delivery.last_status, 503);
      assert.equal(receiver.at("/down").length, 2);
    });
  });
}
