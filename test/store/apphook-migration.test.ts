// Migration 012 on both dialects: connected accounts made before it get an inbound key each
// (their /a/<key> URL), distinct and unguessable like every new one.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { migrations } from "../../src/store/migrations/index.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";

const APPHOOKS = migrations["012-apphooks"]!;

for (const dialect of DIALECTS) {
  describe(`migration 012, apphooks [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      await testStore.close();
    });

    it("gives every account made before it an inbound key of its own", async () => {
      const db = store.db as any;
      await APPHOOKS.down!(db);
      const now = Date.now();
      const row = (id: string) => ({
        id,
        user_id: "u_1",
        app: "slack",
        name: null,
        fields: "[]",
        credentials: "v1.x",
        source_id: null,
        prop_name: null,
        created_at: now,
        updated_at: now,
      });
      await db
        .insertInto("connected_accounts")
        .values([row("apn_1"), row("apn_2")])
        .execute();
      await APPHOOKS.up(db);
      const keys = (await store.db.selectFrom("connected_accounts").select(["id", "inbound_key"]).orderBy("id").execute()).map(
        (r) => r.inbound_key,
      );
      assert.equal(keys.length, 2);
      for (const key of keys) assert.match(key, /^[a-z0-9]{24}$/);
      assert.notEqual(keys[0], keys[1]);
      await assert.rejects(
        store.db.updateTable("connected_accounts").set({ inbound_key: keys[0]! }).where("id", "=", "apn_2").execute(),
        "the key is unique",
      );
    });
  });
}
