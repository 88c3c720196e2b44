// After-commit callbacks of a scoped transaction: called once it committed (what it wrote is
// visible to other connections by then), never when it rolled back, and at once outside a
// transaction.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Store } from "../../src/store/store.js";
import { afterCommit, inScopedTransaction } from "../../src/store/transaction-scope.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";

for (const dialect of DIALECTS) {
  describe(`after commit [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      await testStore.close();
    });

    const job = (id: string) => ({ id, type: "test", payload: "{}", run_at: 1, attempts: 0, created_at: 1 });
    const visible = async (id: string) => (await store.db.selectFrom("jobs").select("id").where("id", "=", id).execute()).length === 1;

    it("calls back once the transaction committed", async () => {
      const calls: boolean[] = [];
      const seen: Array<Promise<boolean>> = [];
      await inScopedTransaction(store.db, async (tx) => {
        await tx.insertInto("jobs").values(job("job_committed")).execute();
        afterCommit(tx, () => {
          calls.push(true);
          seen.push(visible("job_committed"));
        });
        assert.equal(calls.length, 0, "not before the commit");
      });
      assert.equal(calls.length, 1);
      assert.equal(await seen[0], true);
    });

    it("never calls back when the transaction rolled back", async () => {
      let called = false;
      await assert.rejects(
        inScopedTransaction(store.db, async (tx) => {
          await tx.insertInto("jobs").values(job("job_rolled_back")).execute();
          afterCommit(tx, () => (called = true));
          throw new Error("roll back");
        }),
        /roll back/,
      );
      assert.equal(called, false);
      assert.equal(await visible("job_rolled_back"), false);
    });

    it("calls back at once outside a transaction", () => {
      let called = false;
      afterCommit(store.db, () => (called = true));
      assert.equal(called, true);
    });
  });
}
