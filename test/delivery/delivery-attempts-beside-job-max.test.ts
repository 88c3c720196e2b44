// The queue's maximum of attempts (SLUICE_JOB_MAX_ATTEMPTS) does not cut a webhook delivery's
// own retry schedule short: with a maximum of 3 and a schedule of 8 attempts, a delivery to an
// endpoint that always fails makes all 8 and ends as a failed delivery, not as a dead job.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fanOut } from "../../src/domain/deliveries/fan-out.js";
import type { StoredEvent } from "../../src/domain/events/stored-event.js";
import { newId } from "../../src/lib/ids.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";

for (const dialect of DIALECTS) {
  describe(`delivery attempts beside the job maximum [${dialect}]`, () => {
    let app: TestApp;
    let receiver: Receiver;

    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, {
        allowPrivateEgress: true,
        jobMaxAttempts: 3,
        webhookRetryScheduleSeconds: [0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01],
      });
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    it("a delivery with a schedule of 8 attempts makes all 8 and ends failed", async () => {
      const account = await app.newAccount();
      receiver.on("/down", () => ({ status: 500, body: "down" }));
      const hook = (await account.api.post("/webhooks", undefined, { url: `${receiver.url}/down` })).body.data;
      const db = app.sluice.services.ctx.db;
      const emitter = newId("dc");
      await db
        .insertInto("subscriptions")
        .values({
          id: newId("sub"),
          user_id: account.id,
          emitter_id: emitter,
          listener_id: hook.id,
          event_name: "",
          created_at: Date.now(),
        })
        .execute();
      const now = Date.now();
      const stored: StoredEvent = {
        id: `${now}-0`,
        userId: account.id,
        emitterId: emitter,
        stream: "",
        event: { n: 1 },
        metadata: {},
        indexedAtMs: now,
      };
      await db.transaction().execute((trx) => fanOut(trx, [stored], { now: Date.now() }));

      await waitFor(
        async () => (await account.api.get(`/webhooks/${hook.id}/deliveries`, { status: "failed" })).body.page_info.total_count === 1,
        20_000,
      );
      const [delivery] = (await account.api.get(`/webhooks/${hook.id}/deliveries`)).body.data;
      assert.equal(delivery.status, "failed");
      assert.equal(delivery.attempt_count, 8);
      assert.equal(receiver.at("/down").length, 8);
      assert.deepEqual(await db.selectFrom("dead_jobs").select("id").execute(), []);
      assert.deepEqual(await db.selectFrom("jobs").select("id").where("type", "=", "delivery").execute(), []);
    });
  });
}
