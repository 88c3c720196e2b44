// Successful deliveries on each dialect: their attempt rows, their status and the removal of
// their queue jobs are written together (one statement on PostgreSQL, one transaction on
// SQLite), each exactly once per delivery.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DELIVERY_JOB } from "../../src/domain/deliveries/delivery-job.js";
import { fanOut } from "../../src/domain/deliveries/fan-out.js";
import type { StoredEvent } from "../../src/domain/events/stored-event.js";
import { newId } from "../../src/lib/ids.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";

for (const dialect of DIALECTS) {
  describe(`successful deliveries [${dialect}]`, () => {
    let app: TestApp;
    let receiver: Receiver;
    let account: Account;

    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, { allowPrivateEgress: true });
      account = await app.newAccount();
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    it("record one attempt each, succeed, and leave no job behind", async () => {
      const db = app.sluice.services.ctx.db;
      const res = await account.api.post("/webhooks", undefined, { url: `${receiver.url}/ok` });
      assert.equal(res.status, 200);
      const hookId = res.body.data.id as string;
      const emitter = newId("dc");
      await db
        .insertInto("subscriptions")
        .values({ id: newId("sub"), user_id: account.id, emitter_id: emitter, listener_id: hookId, event_name: "", created_at: Date.now() })
        .execute();
      const now = Date.now();
      const events: StoredEvent[] = Array.from({ length: 150 }, (_, i) => ({
        id: `${now}-${i}`,
        userId: account.id,
        emitterId: emitter,
        stream: "",
        event: { i },
        metadata: {},
        indexedAtMs: now,
      }));
      await db.transaction().execute((trx) => fanOut(trx, events, { now: Date.now() }));

      await waitFor(async () => (await db.selectFrom("jobs").select("id").where("type", "=", DELIVERY_JOB).execute()).length === 0, 15_000);
      const deliveries = await db.selectFrom("deliveries").select(["id", "status", "attempts"]).where("listener_id", "=", hookId).execute();
      assert.equal(deliveries.length, 150);
      assert.deepEqual(new Set(deliveries.map((d) => `${d.status}/${d.attempts}`)), new Set(["succeeded/1"]));
      const attempts = await db
        .selectFrom("delivery_attempts")
        .select(["delivery_id", "status_code"])
        .where(
          "delivery_id",
          "in",
          deliveries.map((d) => d.id),
        )
        .execute();
      assert.equal(attempts.length, 150);
      assert.equal(new Set(attempts.map((a) => a.delivery_id)).size, 150);
      assert.ok(attempts.every((a) => a.status_code === 200));
      assert.equal(receiver.at("/ok").length, 150);
    });
  });
}
