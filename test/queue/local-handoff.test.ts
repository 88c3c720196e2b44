// Jobs enqueued by this process are handed to its own worker as they commit, leased in the
// row they are inserted as, without a claim; a rolled-back hand-over gives the place back;
// jobs that wait in the database, or are due later, are claimed as before. A full worker
// holds a short line of handed-over jobs, and gives it back when it stops.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { systemClock } from "../../src/lib/clock.js";
import { DbJobQueue } from "../../src/queue/db-job-queue.js";
import { postgresQueueDialect } from "../../src/queue/postgres-queue-dialect.js";
import type { QueueDialect } from "../../src/queue/queue-dialect.js";
import { sqliteQueueDialect } from "../../src/queue/sqlite-queue-dialect.js";
import type { Store } from "../../src/store/store.js";
import { inScopedTransaction } from "../../src/store/transaction-scope.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { waitFor } from "../helpers/wait-for.js";

const logger = pino({ level: "silent" });

/** A promise a handler waits on until the test releases it. */
function newGate(): { gate: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

for (const dialect of DIALECTS) {
  describe(`jobs handed to this process's worker [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    let queue: DbJobQueue;
    const claims: string[] = [];
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
      const base: QueueDialect =
        dialect === "postgres" ? postgresQueueDialect(testStore.database.databaseUrl!, logger) : sqliteQueueDialect;
      // Counts the claims of each type, so a test can tell a hand-over from a claim.
      const counting: QueueDialect = { ...base, claim: (db, request) => (claims.push(request.type), base.claim(db, request)) };
      queue = new DbJobQueue({ db: store.db, dialect: counting, clock: systemClock, logger, pollMs: 60_000 });
    });
    after(async () => {
      await queue.stop();
      await testStore.close();
    });

    /** Until no claim came for a while: the first looks (and on PostgreSQL the listener's catch-up) are over. */
    const settle = async () => {
      let seen = -1;
      while (seen !== claims.length) {
        seen = claims.length;
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
    };
    const idOf = async (name: string) =>
      (await store.db.selectFrom("jobs").select("id").where("payload", "like", `%${name}%`).executeTakeFirstOrThrow()).id;
    const rowOf = (id: string) => store.db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
    const claimsOf = (type: string) => claims.filter((t) => t === type).length;
    /** Enqueues a job of `type` named `name` in a scoped transaction, as the group commit does. */
    const enqueueNamed = (type: string, name: string) =>
      inScopedTransaction(store.db, (tx) => queue.enqueue(tx, [{ type, payload: { name } }]));

    it("starts a job committed in a scoped transaction without claiming it, leased in its row from the start", async () => {
      const seen: Array<{ payload: unknown; attempts: number; row: Awaited<ReturnType<typeof rowOf>> }> = [];
      // The start order is recorded before the row is read: on PostgreSQL two reads may finish out of order.
      queue.handle("handed", async (job) => {
        const entry: (typeof seen)[number] = { payload: job.payload, attempts: job.attempts, row: undefined };
        seen.push(entry);
        entry.row = await rowOf(job.id);
      });
      queue.start();
      await settle(); // the first look finds nothing: the type is drained
      const before = claimsOf("handed");
      for (let i = 0; i < 5; i++) await inScopedTransaction(store.db, (tx) => queue.enqueue(tx, [{ type: "handed", payload: { n: i } }]));
      await waitFor(() => seen.length === 5 && seen.every((s) => s.row !== undefined));
      assert.deepEqual(
        seen.map((s) => s.payload),
        [0, 1, 2, 3, 4].map((n) => ({ n })),
      );
      assert.equal(claimsOf("handed"), before, "no claim for handed-over jobs");
      for (const { row, attempts } of seen) {
        assert.ok(row?.lease_token, "the running job's row holds its lease");
        assert.ok(Number(row.locked_until) > Date.now());
        assert.equal(attempts, 1);
      }
      await waitFor(async () => (await store.db.selectFrom("jobs").select("id").where("type", "=", "handed").execute()).length === 0);
    });

    it("gives the place back when the transaction rolls back: the job never runs, the next one does", async () => {
      const seen: string[] = [];
      queue.handle("rolled", async (job) => void seen.push(job.payload.name), { concurrency: 1 });
      await settle();
      await assert.rejects(
        inScopedTransaction(store.db, async (tx) => {
          await queue.enqueue(tx, [{ type: "rolled", payload: { name: "rolled back" } }]);
          throw new Error("boom");
        }),
        /boom/,
      );
      await inScopedTransaction(store.db, (tx) => queue.enqueue(tx, [{ type: "rolled", payload: { name: "committed" } }]));
      await waitFor(() => seen.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(seen, ["committed"]);
    });

    it("holds a short line when the worker is full, leaves jobs past it to claims, and keeps their order", async () => {
      const order: string[] = [];
      const claimsAtStart = new Map<string, number>();
      const { gate, release } = newGate();
      queue.handle(
        "full",
        async (job) => {
          order.push(job.payload.name);
          claimsAtStart.set(job.payload.name, claimsOf("full"));
          if (job.payload.name === "first") await gate;
        },
        { concurrency: 1 },
      );
      try {
        await settle();
        await enqueueNamed("full", "first");
        await waitFor(() => order.length === 1);
        // The only place is taken: "second" waits in the worker's line (one per place),
        // leased already, and "third", past the line, is inserted free for a claim.
        const claimsBefore = claimsOf("full");
        await enqueueNamed("full", "second");
        await enqueueNamed("full", "third");
        assert.ok((await rowOf(await idOf("second")))?.lease_token, "the job in the line is leased by this worker");
        assert.equal((await rowOf(await idOf("third")))?.lease_token, null);
        release();
        await waitFor(() => order.length === 3);
        assert.equal(claimsAtStart.get("second"), claimsBefore, "the job in the line started without a claim");
        assert.ok(claimsAtStart.get("third")! > claimsBefore, "the job past the line was claimed");
      } finally {
        release();
      }
      await enqueueNamed("full", "fourth");
      await waitFor(() => order.length === 4);
      assert.deepEqual(order, ["first", "second", "third", "fourth"]);
    });

    it("claims nothing when a place of a full worker frees and nothing waits in the database", async () => {
      const seen: string[] = [];
      const { gate, release } = newGate();
      queue.handle(
        "drained",
        async (job) => {
          seen.push(job.payload.name);
          if (job.payload.name === "first") await gate;
        },
        { concurrency: 1 },
      );
      await settle();
      const claimsBefore = claimsOf("drained");
      try {
        await enqueueNamed("drained", "first");
        await waitFor(() => seen.length === 1);
        await enqueueNamed("drained", "second");
      } finally {
        release();
      }
      await waitFor(() => seen.length === 2);
      await settle();
      assert.equal(claimsOf("drained"), claimsBefore, "both were handed over, and the freed places asked for no claim");
    });

    it("does not hand over a job due later", async () => {
      const seen: number[] = [];
      queue.handle("later", async () => void seen.push(Date.now()));
      await settle();
      await inScopedTransaction(store.db, (tx) =>
        queue.enqueue(tx, [{ type: "later", payload: { name: "later" }, runAt: Date.now() + 300 }]),
      );
      assert.equal((await rowOf(await idOf("later")))?.lease_token, null);
      await waitFor(() => seen.length === 1);
    });

    // Last: it stops the queue the other tests share.
    it("a worker that stops gives the jobs in its line back to the queue, unrun", async () => {
      const seen: string[] = [];
      const { gate, release } = newGate();
      queue.handle(
        "stopping",
        async (job) => {
          seen.push(job.payload.name);
          await gate;
        },
        { concurrency: 1 },
      );
      await settle();
      await enqueueNamed("stopping", "running");
      await waitFor(() => seen.length === 1);
      await enqueueNamed("stopping", "in line");
      const lined = await idOf("in line");
      assert.ok((await rowOf(lined))?.lease_token);
      const stopped = queue.stop();
      try {
        await waitFor(async () => (await rowOf(lined))?.lease_token === null);
      } finally {
        release();
        await stopped;
      }
      const row = await rowOf(lined);
      assert.equal(row?.locked_until, null);
      assert.equal(Number(row?.attempts), 0, "it never ran");
      assert.deepEqual(seen, ["running"]);
    });
  });
}
