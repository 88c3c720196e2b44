import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { retryOnEventIdClash } from "../../src/domain/events/append-events.js";
import type { Store } from "../../src/store/store.js";
import { isUniqueViolation } from "../../src/store/unique-violation.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";

for (const dialect of DIALECTS) {
  describe(`unique violations and the event-id retry [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      await testStore.close();
    });

    const event = { emitter_id: "dc_x", ms: 1, seq: 0, id: "1-0", user_id: "u_x", stream: "", event: "{}", metadata: "{}" };

    it("recognises a duplicate event key (the id race between processes), and not other errors", async () => {
      await store.db.insertInto("events").values(event).execute();
      const clash = await store.db
        .insertInto("events")
        .values(event)
        .execute()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(clash, "the duplicate insert failed");
      assert.equal(isUniqueViolation(clash), true);
      const other = await store.db
        .selectFrom("no_such_table" as any)
        .selectAll()
        .execute()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.equal(isUniqueViolation(other), false);
    });

    it("retries a store that lost an event-id race, and only that", async () => {
      const duplicate = await store.db
        .insertInto("events")
        .values(event)
        .execute()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      let calls = 0;
      const stored = await retryOnEventIdClash(async () => {
        calls++;
        if (calls < 3) throw duplicate;
        return "stored";
      });
      assert.equal(stored, "stored");
      assert.equal(calls, 3);

      let otherCalls = 0;
      await assert.rejects(
        retryOnEventIdClash(async () => {
          otherCalls++;
          throw new Error("not a clash");
        }),
        /not a clash/,
      );
      assert.equal(otherCalls, 1);
    });
  });
}
