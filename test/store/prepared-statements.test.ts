// PostgreSQL only: statement texts that come back are run as named prepared statements (one
// plan per connection), with the same results as unprepared; texts seen once stay unprepared.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createPgPool } from "../../src/store/postgres.js";
import { DIALECTS, createTestDatabase, type TestDatabase } from "../helpers/dialects.js";

describe("prepared statements on PostgreSQL", { skip: !DIALECTS.includes("postgres") && "needs TEST_DATABASE_URL" }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase("postgres");
  });
  after(async () => {
    await database.drop();
  });

  it("prepares a text after it ran a few times and returns the same rows", async () => {
    const pool = createPgPool(database.databaseUrl!, 1); // one connection: its prepared statements are the ones we see
    try {
      const hot = "select $1::int + 1 as next, 'hot statement' as tag";
      const once = "select $1::int * 2 as doubled, 'cold statement' as tag";
      const results = [];
      for (let i = 0; i < 5; i++) results.push((await pool.query(hot, [i])).rows[0].next);
      assert.deepEqual(results, [1, 2, 3, 4, 5]);
      assert.equal((await pool.query(once, [21])).rows[0].doubled, 42);
      const prepared = (await pool.query("select statement from pg_prepared_statements")).rows.map((row) => row.statement as string);
      assert.ok(prepared.includes(hot), `prepared: ${JSON.stringify(prepared)}`);
      assert.ok(!prepared.includes(once));
      // Still right with other values after it is prepared, and a failing run reports its error.
      assert.equal((await pool.query(hot, [41])).rows[0].next, 42);
      await assert.rejects(pool.query(hot, ["not a number"]), /invalid input syntax/);
      assert.equal((await pool.query(hot, [9])).rows[0].next, 10);
    } finally {
      await pool.end();
    }
  });
});
