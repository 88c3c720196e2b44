// Deliveries committed by fan-out are handed to the delivery worker with their webhook's
// columns (committed-deliveries.ts), after the commit only, and never for a rollback; a job
// handed to this process's worker at the same commit uses them instead of reading its row.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LoadedDelivery } from "../../src/delivery-worker/delivery-loader.js";
import { fanOut } from "../../src/domain/deliveries/fan-out.js";
import type { StoredEvent } from "../../src/domain/events/stored-event.js";
import { newId } from "../../src/lib/ids.js";
import { inScopedTransaction } from "../../src/store/transaction-scope.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";

for (const dialect of DIALECTS) {
  describe(`deliveries handed over at commit [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let hookId: string;
    let emitter: string;
    const announced: LoadedDelivery[][] = [];
    let stopListening: () => void;

    before(async () => {
      // No worker: the deliveries stay as written.
      app = await startTestApp(dialect, { allowPrivateEgress: true }, { roles: ["api"] });
      account = await app.newAccount();
      const res = await account.api.post("/webhooks", undefined, { url: "http://127.0.0.1:9/hook" });
      hookId = res.body.data.id as string;
      emitter = newId("dc");
      await app.sluice.services.ctx.db
        .insertInto("subscriptions")
        .values({ id: newId("sub"), user_id: account.id, emitter_id: emitter, listener_id: hookId, event_name: "", created_at: Date.now() })
        .execute();
      stopListening = app.sluice.services.ctx.committedDeliveries.listen((rows) => announced.push(rows));
    });
    after(async () => {
      stopListening();
      await app.close();
    });

    const events = (n: number): StoredEvent[] => {
      const now = Date.now();
      return Array.from({ length: n }, (_, i) => ({
        id: `${now}-${i}`,
        userId: account.id,
        emitterId: emitter,
        stream: "",
        event: { i },
        metadata: {},
        indexedAtMs: now,
      }));
    };

    it("hands over the rows as stored, with the webhook, once the transaction committed", async () => {
      announced.length = 0;
      const db = app.sluice.services.ctx.db;
      await inScopedTransaction(db, async (tx) => {
        await fanOut(tx, events(3), { now: Date.now(), announce: app.sluice.services.ctx.committedDeliveries });
        assert.equal(announced.length, 0, "not before the commit");
      });
      assert.equal(announced.length, 1);
      const rows = announced[0]!;
      assert.equal(rows.length, 3);
      const stored = await db
        .selectFrom("deliveries")
        .selectAll()
        .where(
          "id",
          "in",
          rows.map((row) => row.id),
        )
        .execute();
      const webhook = await db.selectFrom("webhooks").selectAll().where("id", "=", hookId).executeTakeFirstOrThrow();
      for (const row of rows) {
        const inDatabase = stored.find((s) => s.id === row.id)!;
        for (const [column, value] of Object.entries(inDatabase))
          assert.equal(String(row[column as keyof LoadedDelivery]), String(value), column);
        assert.equal(row.wh_id, hookId);
        assert.equal(row.wh_url, webhook.url);
        assert.equal(Number(row.wh_active), 1);
        assert.equal(row.wh_signing_secret, webhook.signing_secret);
        assert.equal(row.wh_previous_secret, null);
      }
    });

    it("hands over nothing for a transaction that rolled back", async () => {
      announced.length = 0;
      await assert.rejects(
        inScopedTransaction(app.sluice.services.ctx.db, async (tx) => {
          await fanOut(tx, events(2), { now: Date.now(), announce: app.sluice.services.ctx.committedDeliveries });
          throw new Error("roll back");
        }),
        /roll back/,
      );
      assert.equal(announced.length, 0);
    });
  });

  describe(`a delivery handed to this process's worker uses the rows handed over [${dialect}]`, () => {
    let app: TestApp;
    let receiver: Receiver;
    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, { allowPrivateEgress: true });
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    it("sends its first attempt from the rows fan-out wrote, without reading them back", async () => {
      const account = await app.newAccount();
      const hook = await account.api.post("/webhooks", undefined, { url: `${receiver.url}/as-handed-over` });
      const emitter = newId("dc");
      const db = app.sluice.services.ctx.db;
      await db
        .insertInto("subscriptions")
        .values({
          id: newId("sub"),
          user_id: account.id,
          emitter_id: emitter,
          listener_id: hook.body.data.id,
          event_name: "",
          created_at: Date.now(),
        })
        .execute();
      const now = Date.now();
      const event: StoredEvent = {
        id: `${now}-0`,
        userId: account.id,
        emitterId: emitter,
        stream: "",
        event: { n: 1 },
        metadata: {},
        indexedAtMs: now,
      };
      await inScopedTransaction(db, async (tx) => {
        await fanOut(tx, [event], { now: Date.now(), announce: app.sluice.services.ctx.committedDeliveries });
        // What a read after the commit would see: only the handed-over rows keep the first URL.
        await tx
          .updateTable("webhooks")
          .set({ url: `${receiver.url}/read-back` })
          .where("id", "=", hook.body.data.id)
          .execute();
      });
      await waitFor(() => receiver.at("/as-handed-over").length + receiver.at("/read-back").length > 0, {
        timeoutMs: 10_000,
        intervalMs: 10,
      });
      assert.equal(receiver.at("/read-back").length, 0, "the delivery was read back from the database");
      assert.equal(receiver.at("/as-handed-over").length, 1);
    });
  });
}
