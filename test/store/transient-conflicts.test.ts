// A transaction that loses a deadlock with another process (PostgreSQL aborts one of the two,
// 40P01) is run again instead of failing its caller: two workers' group commits may take the
// same emitters' rows in another order, and a failure there once dropped an accepted event.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { inGroupTransaction } from "../../src/store/group-commit.js";
import { isTransientConflict, retryTransientConflicts, TRANSIENT_ATTEMPTS } from "../../src/store/transient-conflict.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";

const conflict = (code: string) => Object.assign(new Error(`conflict ${code}`), { code });

describe("transient conflicts", () => {
  it("are deadlocks and serialization failures, nothing else", () => {
    assert.equal(isTransientConflict(conflict("40P01")), true);
    assert.equal(isTransientConflict(conflict("40001")), true);
    for (const other of [conflict("23505"), conflict("SQLITE_BUSY"), new Error("x"), undefined, null, "40P01"])
      assert.equal(isTransientConflict(other), false, String(other));
  });

  it("are tried again, up to the attempts in all; any other error at once", async () => {
    let calls = 0;
    assert.equal(
      await retryTransientConflicts(async () => {
        if (++calls < 3) throw conflict("40P01");
        return "stored";
      }),
      "stored",
    );
    assert.equal(calls, 3);
    calls = 0;
    await assert.rejects(
      retryTransientConflicts(async () => {
        calls++;
        throw conflict("40001");
      }),
      /conflict 40001/,
    );
    assert.equal(calls, TRANSIENT_ATTEMPTS);
    calls = 0;
    await assert.rejects(
      retryTransientConflicts(async () => {
        calls++;
        throw conflict("23505");
      }),
      /conflict 23505/,
    );
    assert.equal(calls, 1);
  });
});

for (const dialect of DIALECTS.filter((name) => name === "postgres")) {
  describe(`a grouped transaction that loses a deadlock [${dialect}]`, () => {
    let testStore: TestStore;
    let other: pg.Client;
    before(async () => {
      testStore = await openTestStore(dialect);
      const db = testStore.store.db;
      await sql`create table deadlock_rows (id text primary key, n integer not null)`.execute(db);
      await sql`insert into deadlock_rows values ('a', 0), ('b', 0)`.execute(db);
      other = new pg.Client({ connectionString: testStore.database.databaseUrl });
      await other.connect();
      // The other side looks for the cycle only after 10 s: the unit's side (1 s, the default)
      // always finds it first and is the one aborted, however busy the machine.
      await other.query("set deadlock_timeout = '10s'");
    });
    after(async () => {
      await other?.end();
      await testStore?.close();
    });

    it("is run again and commits, once the other process's transaction is through", async () => {
      const db = testStore.store.db;
      // The other process takes b first; this unit takes a, then waits for b; then the other
      // asks for a. PostgreSQL finds the cycle from the unit's side and aborts its transaction.
      await other.query("begin");
      await other.query("update deadlock_rows set n = n + 1 where id = 'b'");
      let attempts = 0;
      let tookA!: () => void;
      const aTaken = new Promise<void>((resolve) => (tookA = resolve));
      const unit = inGroupTransaction(db, async (tx) => {
        attempts++;
        await sql`update deadlock_rows set n = n + 10 where id = 'a'`.execute(tx);
        tookA();
        await sql`update deadlock_rows set n = n + 10 where id = 'b'`.execute(tx);
        return attempts;
      });
      await aTaken;
      const others = other.query("update deadlock_rows set n = n + 1 where id = 'a'").then(() => other.query("commit"));
      others.catch(() => {}); // awaited below; a failure there fails the test, never goes unhandled
      assert.equal(await unit, 2, "the first attempt lost the deadlock, the second committed");
      await others;
      const rows = await sql<{ id: string; n: number }>`select id, n from deadlock_rows order by id`.execute(db);
      assert.deepEqual(
        rows.rows.map((row) => [row.id, Number(row.n)]),
        [
          ["a", 11],
          ["b", 11],
        ],
      );
    });
  });
}
