// Multi-row INSERTs without Kysely's query tree (store/insert-rows.ts): the rows arrive as
// given on both databases, nulls included, and the SQL text for a row count is made once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { rowInserter } from "../../src/store/insert-rows.js";
import type { JobsTable } from "../../src/store/schema.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";

const insertJobs = rowInserter("jobs", {
  id: true,
  type: true,
  payload: true,
  user_id: true,
  concurrency_key: true,
  run_at: true,
  attempts: true,
  lease_token: true,
  locked_until: true,
  last_error: true,
  created_at: true,
});

const job = (id: string, overrides: Partial<JobsTable> = {}): JobsTable => ({
  id,
  type: "test",
  payload: JSON.stringify({ id, quote: 'it\'s "quoted" and $1' }),
  user_id: null,
  concurrency_key: `key-${id}`,
  run_at: 1_700_000_000_000,
  attempts: 2,
  lease_token: null,
  locked_until: null,
  last_error: null,
  created_at: 1_700_000_000_001,
  ...overrides,
});

for (const dialect of DIALECTS) {
  describe(`row inserter [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      await testStore.close();
    });

    it("inserts every row with every column as given", async () => {
      const rows = [
        job("job_a"),
        job("job_b", { user_id: "u_1", lease_token: "t", locked_until: 5, last_error: "boom" }),
        job("job_c", { concurrency_key: null }),
      ];
      await insertJobs.execute(store.db, rows);
      const stored = await store.db.selectFrom("jobs").selectAll().where("id", "in", ["job_a", "job_b", "job_c"]).orderBy("id").execute();
      assert.deepEqual(
        stored.map((row) => ({
          ...row,
          run_at: Number(row.run_at),
          created_at: Number(row.created_at),
          locked_until: row.locked_until === null ? null : Number(row.locked_until),
        })),
        rows,
      );
    });

    it("runs inside the caller's transaction", async () => {
      await assert.rejects(
        store.db.transaction().execute(async (tx) => {
          await insertJobs.execute(tx, [job("job_rolled_back")]);
          throw new Error("roll back");
        }),
        /roll back/,
      );
      assert.equal((await store.db.selectFrom("jobs").select("id").where("id", "=", "job_rolled_back").execute()).length, 0);
    });

    it("makes the text for a row count once, with a placeholder per value", () => {
      const two = insertJobs.compile(store.db, [job("x1"), job("x2")]);
      assert.equal(two.parameters.length, 22);
      assert.equal(insertJobs.compile(store.db, [job("y1"), job("y2")]).sql, two.sql);
      assert.notEqual(insertJobs.compile(store.db, [job("z1")]).sql, two.sql);
      assert.match(two.sql, dialect === "postgres" ? /\(\$12, \$13,/ : /\), \(\?, \?,/);
      assert.throws(() => insertJobs.compile(store.db, []), /no rows/);
    });
  });
}
