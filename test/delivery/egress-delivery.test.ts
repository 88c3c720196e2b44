// Without SLUICE_ALLOW_PRIVATE_EGRESS, webhooks to loopback in any spelling (and names that
// resolve to it) are refused before a connection is made, and the refusal, naming the setting,
// is the recorded error. The API refuses such URLs when they are set; these rows stand for
// webhooks whose host pointed elsewhere when they were saved, so each attempt checks again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EGRESS_REFUSED_ATTEMPT_ERROR } from "../../src/egress/egress-guard.js";
import { fanOut } from "../../src/domain/deliveries/fan-out.js";
import { newId } from "../../src/lib/ids.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";

for (const dialect of DIALECTS) {
  describe(`egress guard on webhook delivery [${dialect}]`, () => {
    let app: TestApp;
    let receiver: Receiver;
    let account: Account;

    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, { allowPrivateEgress: false, webhookRetryScheduleSeconds: [] });
      account = await app.newAccount();
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    it("refuses literal loopback IPs in every spelling and names resolving to loopback", async () => {
      const port = new URL(receiver.url).port;
      const hosts = [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "2130706433",
        "0x7f000001",
        "0177.0.0.1",
        "127.1",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
      ];
      const db = app.sluice.services.ctx.db;
      const emitter = newId("dc");
      const hookIds: string[] = [];
      for (const [i, host] of hosts.entries()) {
        const created = await account.api.post("/webhooks", undefined, { url: `http://public-then.test:${port}/guarded-${i}` });
        assert.equal(created.status, 200, created.text);
        const id: string = created.body.data.id;
        await db
          .updateTable("webhooks")
          .set({ url: `http://${host}:${port}/guarded-${i}` })
          .where("id", "=", id)
          .execute();
        hookIds.push(id);
        await db
          .insertInto("subscriptions")
          .values({ id: newId("sub"), user_id: account.id, emitter_id: emitter, listener_id: id, event_name: "", created_at: Date.now() })
          .execute();
      }
      const now = Date.now();
      await db.transaction().execute((trx) =>
        fanOut(
          trx,
          [
            {
              id: `${now}-0`,
              userId: account.id,
              emitterId: emitter,
              stream: "",
              event: { secret: "internal" },
              metadata: {},
              indexedAtMs: now,
            },
          ],
          { now },
        ),
      );
      const done = () =>
        db
          .selectFrom("deliveries")
          .select(["listener_id", "status"])
          .where("listener_id", "in", hookIds)
          .where("status", "=", "failed")
          .execute();
      await waitFor(async () => (await done()).length === hosts.length, 10_000);
      const attempts = await db
        .selectFrom("delivery_attempts")
        .innerJoin("deliveries", "deliveries.id", "delivery_attempts.delivery_id")
        .select(["deliveries.listener_id", "delivery_attempts.error", "delivery_attempts.status_code"])
        .where("deliveries.listener_id", "in", hookIds)
        .execute();
      assert.equal(attempts.length, hosts.length);
      for (const attempt of attempts) {
        assert.equal(attempt.status_code, null);
        assert.equal(attempt.error, EGRESS_REFUSED_ATTEMPT_ERROR, `${hosts[hookIds.indexOf(attempt.listener_id)]}`);
        assert.match(attempt.error ?? "", /SLUICE_ALLOW_PRIVATE_EGRESS/);
      }
      assert.equal(receiver.received.length, 0);
    });
  });
}
