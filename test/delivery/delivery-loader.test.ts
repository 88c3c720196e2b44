// The delivery loader on each dialect: loads requested together share one query; a delivery
// prefetched when its job was claimed is used while fresh, and read again once older than
// PREFETCH_MAX_AGE_MS, so a webhook changed meanwhile (disabled, new URL) is seen within that time.
// A delivery handed over when it was committed is used only by its job's first claim.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { deliveryLoader, PREFETCH_MAX_AGE_MS } from "../../src/delivery-worker/delivery-loader.js";
import { newId } from "../../src/lib/ids.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";

for (const dialect of DIALECTS) {
  describe(`delivery loader [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    const userId = newId("u");
    const webhookId = newId("wh");
    const deliveryIds = [newId("del"), newId("del"), newId("del"), newId("del")];

    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
      const now = Date.now();
      await store.db
        .insertInto("users")
        .values({
          id: userId,
          username: `loader-${userId}`,
          email: `${userId}@test.invalid`,
          plan: "paid",
          created_at: now,
          updated_at: now,
        })
        .execute();
      await store.db
        .insertInto("webhooks")
        .values({
          id: webhookId,
          user_id: userId,
          name: null,
          description: null,
          url: "http://127.0.0.1:9/old",
          active: 1,
          signing_secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          previous_secret: null,
          previous_secret_expires_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await store.db
        .insertInto("deliveries")
        .values(
          deliveryIds.map((id) => ({
            id,
            user_id: userId,
            listener_id: webhookId,
            emitter_id: newId("dc"),
            event_id: `${now}-0`,
            stream: "",
            event: "{}",
            hops: 0,
            status: "pending",
            attempts: 0,
            next_attempt_at: now,
            last_attempt_at: null,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
    });
    after(async () => {
      await testStore.close();
    });

    it("uses a fresh prefetch, and reads again once it is older than its limit", async () => {
      let clock = 0;
      const loader = deliveryLoader(store.db, () => clock);
      for (const id of deliveryIds) loader.prefetch(id);
      const first = await loader.load(deliveryIds[0]!);
      assert.equal(first?.wh_url, "http://127.0.0.1:9/old");
      await store.db.updateTable("webhooks").set({ url: "http://127.0.0.1:9/new", active: 0 }).where("id", "=", webhookId).execute();
      clock += PREFETCH_MAX_AGE_MS + 1;
      const second = await loader.load(deliveryIds[1]!);
      assert.equal(second?.wh_url, "http://127.0.0.1:9/new");
      assert.equal(Number(second?.wh_active), 0);
      assert.equal(await loader.load(newId("del")), undefined);
    });

    it("uses the row handed over at commit for the job's first claim only, without reading it", async () => {
      let clock = 0;
      const loader = deliveryLoader(store.db, () => clock);
      await store.db
        .updateTable("webhooks")
        .set({ url: "http://127.0.0.1:9/in-the-database", active: 1 })
        .where("id", "=", webhookId)
        .execute();
      const stored = await store.db
        .selectFrom("deliveries")
        .selectAll()
        .where("id", "in", [deliveryIds[2]!, deliveryIds[3]!])
        .orderBy("id")
        .execute();
      // As fan-out hands them over: the rows it wrote, with the webhook it read then.
      const handedOver = stored.map((row) => ({
        ...row,
        wh_id: webhookId,
        wh_url: "http://127.0.0.1:9/at-commit",
        wh_active: 1,
        wh_signing_secret: "whsec_x",
        wh_previous_secret: null,
        wh_previous_secret_expires_at: null,
      }));
      loader.committed(handedOver);
      loader.prefetch(handedOver[0]!.id); // at claim: the row handed over serves, no read
      assert.equal((await loader.load(handedOver[0]!.id, true))?.wh_url, "http://127.0.0.1:9/at-commit");
      // A later claim (an attempt may have changed the delivery since): read.
      assert.equal((await loader.load(handedOver[1]!.id, false))?.wh_url, "http://127.0.0.1:9/in-the-database");
      // Too old by its first claim: read too.
      loader.committed(handedOver);
      clock += PREFETCH_MAX_AGE_MS + 1;
      assert.equal((await loader.load(handedOver[0]!.id, true))?.wh_url, "http://127.0.0.1:9/in-the-database");
    });
  });
}
