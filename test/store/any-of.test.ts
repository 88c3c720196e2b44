// `anyOf`: the same rows as IN on both databases, and on PostgreSQL one SQL text for lists of
// every length (so the statement is prepared once, ADR 0016).
import assert from "node:assert/strict";
import { Kysely, PostgresDialect } from "kysely";
import { after, before, describe, it } from "node:test";
import { anyOf } from "../../src/store/any-of.js";
import type { Database } from "../../src/store/schema.js";
import { openStore, type Store } from "../../src/store/store.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/dialects.js";

describe("anyOf", () => {
  it("compiles to one text on PostgreSQL whatever the list's length", () => {
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as never }) }); // compiles only
    const compile = (ids: string[]) => db.selectFrom("jobs").select("id").where(anyOf(db, "id", ids)).compile();
    const one = compile(["job_a"]);
    const three = compile(["job_a", "job_b", "job_c"]);
    assert.equal(one.sql, three.sql);
    assert.deepEqual(three.parameters, [["job_a", "job_b", "job_c"]]);
  });

  for (const dialect of DIALECTS) {
    describe(dialect, () => {
      let database: TestDatabase;
      let store: Store;
      before(async () => {
        database = await createTestDatabase(dialect);
        store = await openStore({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
        await store.db.insertInto("jobs").values({ id: "job_any", type: "test", payload: "{}", run_at: 1, attempts: 0, created_at: 1 }).execute();
      });
      after(async () => {
        await store.close();
        await database.drop();
      });

      it("matches exactly the listed ids", async () => {
        const db = store.db;
        const found = async (ids: string[]) =>
          (await db.selectFrom("jobs").select("id").where(anyOf(db, "id", ids)).execute()).map((row) => row.id);
        assert.deepEqual(await found(["job_any"]), ["job_any"]);
        assert.deepEqual(await found(["job_none", "job_any", "job_other"]), ["job_any"]);
        assert.deepEqual(await found(["job_none"]), []);
      });
    });
  }
});
