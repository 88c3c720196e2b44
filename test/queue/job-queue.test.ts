// The database job queue on each dialect: outbox semantics, wake-up latency, retries, lease
// expiry takeover, and (PostgreSQL) two workers on separate pools sharing 10,000 jobs.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { systemClock } from "../../src/lib/clock.js";
import { createJobQueue } from "../../src/queue/create-job-queue.js";
import type { DbJobQueue } from "../../src/queue/db-job-queue.js";
import { postgresQueueDialect } from "../../src/queue/postgres-queue-dialect.js";
import { sqliteQueueDialect } from "../../src/queue/sqlite-queue-dialect.js";
import { openStore, type Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { waitFor } from "../helpers/wait-for.js";

const logger = pino({ level: "silent" });

for (const dialect of DIALECTS) {
  describe(`job queue [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    const queues: DbJobQueue[] = [];
    const newQueue = (options: { leaseMs?: number; pollMs?: number; store?: Store } = {}) => {
      const queue = createJobQueue({
        store: options.store ?? store,
        clock: systemClock,
        logger,
        leaseMs: options.leaseMs,
        pollMs: options.pollMs,
      });
      queues.push(queue);
      return queue;
    };
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      for (const queue of queues) await queue.stop();
      await testStore.close();
    });

    it("runs a job enqueued outside a transaction within milliseconds, with its payload", async () => {
      const queue = newQueue({ pollMs: 60_000 });
      const seen: Array<{ payload: unknown; userId: string | null; at: number }> = [];
      queue.handle("latency", async (job) => void seen.push({ payload: job.payload, userId: job.userId, at: Date.now() }));
      queue.start();
      await waitFor(async () => (await store.db.selectFrom("jobs").select("id").execute()).length === 0);
      const t0 = Date.now();
      await queue.enqueue(store.db, [{ type: "latency", payload: { n: 1 }, userId: "u_x" }]);
      await waitFor(() => seen.length === 1);
      assert.deepEqual(seen[0]!.payload, { n: 1 });
      assert.equal(seen[0]!.userId, "u_x");
      // The safety poll is a minute: only the wake-up can explain a fast run.
      assert.ok(seen[0]!.at - t0 < 500, `ran after ${seen[0]!.at - t0} ms`);
      await waitFor(async () => (await store.db.selectFrom("jobs").select("id").where("type", "=", "latency").execute()).length === 0);
      await queue.stop();
    });

    it("enqueues in the caller's transaction: rolled back jobs never run, committed ones do", async () => {
      const queue = newQueue({ pollMs: 60_000 });
      const seen: string[] = [];
      queue.handle("outbox", async (job) => void seen.push(job.payload.name));
      queue.start();
      await assert.rejects(
        store.db.transaction().execute(async (trx) => {
          await queue.enqueue(trx, [{ type: "outbox", payload: { name: "rolled back" } }]);
          throw new Error("abort");
        }),
      );
      await store.db.transaction().execute(async (trx) => {
        await queue.enqueue(trx, [{ type: "outbox", payload: { name: "committed" } }]);
      });
      await waitFor(() => seen.length >= 1);
      // Let any wrong run of the rolled-back job show up: another job enqueued later has run.
      await queue.enqueue(store.db, [{ type: "outbox", payload: { name: "marker" } }]);
      await waitFor(() => seen.includes("marker"));
      assert.deepEqual(seen, ["committed", "marker"]);
      await queue.stop();
    });

    it("retries on { retryAt } and after a throw, counting attempts", async () => {
      const queue = newQueue({ pollMs: 60_000 });
      const attempts: number[] = [];
      queue.handle("flaky", async (job) => {
        attempts.push(job.attempts);
        if (job.attempts === 1) return { retryAt: Date.now() + 30 };
        if (job.attempts === 2) throw new Error("boom");
      });
      queue.start();
      await queue.enqueue(store.db, [{ type: "flaky", payload: {} }]);
      await waitFor(() => attempts.length === 3);
      assert.deepEqual(attempts, [1, 2, 3]);
      await waitFor(async () => (await store.db.selectFrom("jobs").select("id").where("type", "=", "flaky").execute()).length === 0);
      await queue.stop();
    });

    it("runs a retry when it is due even if its wake-up timer fires early, not at the next poll", async () => {
      // Node's timers count from the event loop's cached time, so one may fire a little before
      // the clock reaches the time it was set for. The clock here falls 20 ms behind after the
      // retry's timer was set, so that timer fires 20 ms early.
      let lag = 0;
      const clock = { now: () => Date.now() - lag };
      const queue = createJobQueue({ store, clock, logger, pollMs: 60_000 });
      queues.push(queue);
      const runs: number[] = [];
      queue.handle("early-wake", async (job) => {
        runs.push(Date.now());
        if (job.attempts > 1) return;
        setTimeout(() => (lag = 20), 25);
        return { retryAt: clock.now() + 100 };
      });
      queue.start();
      await queue.enqueue(store.db, [{ type: "early-wake", payload: {} }]);
      await waitFor(() => runs.length === 2); // the poll (and the first lease) is a minute
      assert.ok(runs[1]! - runs[0]! >= 100, "not before it was due");
      await queue.stop();
    });

    it("a dead worker's lease expires and another worker takes the job", async () => {
      await newQueue().enqueue(store.db, [{ type: "orphan", payload: { v: 7 } }]);
      // A worker claims the job with a short lease and then dies without finishing it.
      const claimDialect = dialect === "postgres" ? postgresQueueDialect(testStore.database.databaseUrl!, logger) : sqliteQueueDialect;
      const claimed = await claimDialect.claim(store.db, {
        type: "orphan",
        limit: 10,
        now: Date.now(),
        leaseMs: 400,
        token: "dead.1",
        busyKeys: [],
        perKey: 0,
      });
      assert.equal(claimed.length, 1);
      const claimedAt = Date.now();
      const queue = newQueue({ pollMs: 100 });
      const runs: Array<{ at: number; attempts: number }> = [];
      queue.handle("orphan", async (job) => void runs.push({ at: Date.now(), attempts: job.attempts }));
      queue.start();
      await waitFor(() => runs.length === 1);
      assert.ok(runs[0]!.at - claimedAt >= 350, "not taken before the lease expired");
      assert.equal(runs[0]!.attempts, 2);
      await queue.stop();
    });

    it("renews the lease of a long handler so nobody else runs it meanwhile", async () => {
      const a = newQueue({ leaseMs: 200, pollMs: 50 });
      const b = newQueue({ leaseMs: 200, pollMs: 50 });
      let concurrent = 0;
      let maxConcurrent = 0;
      let runs = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      for (const q of [a, b]) {
        q.handle("long", async () => {
          runs++;
          concurrent++;
          maxConcurrent = Math.max(maxConcurrent, concurrent);
          await released;
          concurrent--;
        });
        q.start();
      }
      await a.enqueue(store.db, [{ type: "long", payload: {} }]);
      await waitFor(() => runs === 1);
      // Wait well past several lease lengths while the handler is still running.
      const until = Date.now() + 900;
      await waitFor(() => Date.now() > until);
      release();
      await waitFor(async () => (await store.db.selectFrom("jobs").select("id").where("type", "=", "long").execute()).length === 0);
      assert.equal(runs, 1);
      assert.equal(maxConcurrent, 1);
      await a.stop();
      await b.stop();
    });

    it("runs at most perKeyConcurrency jobs of one key at a time, without holding up other keys", async () => {
      const queue = newQueue({ pollMs: 60_000 });
      const running = new Map<string, number>();
      const maxRunning = new Map<string, number>();
      const done: string[] = [];
      let releaseSlow!: () => void;
      const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
      queue.handle(
        "keyed",
        async (job) => {
          const key = job.payload.key as string;
          running.set(key, (running.get(key) ?? 0) + 1);
          maxRunning.set(key, Math.max(maxRunning.get(key) ?? 0, running.get(key)!));
          if (key === "slow") await slowGate;
          else await new Promise((resolve) => setImmediate(resolve));
          running.set(key, running.get(key)! - 1);
          done.push(key);
        },
        { concurrency: 20, perKeyConcurrency: 3 },
      );
      queue.start();
      await queue.enqueue(
        store.db,
        Array.from({ length: 30 }, () => ({ type: "keyed", payload: { key: "slow" }, concurrencyKey: "slow" })),
      );
      await queue.enqueue(
        store.db,
        Array.from({ length: 30 }, () => ({ type: "keyed", payload: { key: "fast" }, concurrencyKey: "fast" })),
      );
      // Every fast job finishes while the slow key is stuck at its limit.
      await waitFor(() => done.filter((k) => k === "fast").length === 30);
      assert.equal(maxRunning.get("slow"), 3);
      assert.ok(maxRunning.get("fast")! <= 3);
      releaseSlow();
      await waitFor(() => done.length === 60);
      await queue.stop();
    });

    if (dialect === "postgres") {
      it("two workers on separate pools process 10,000 jobs, none twice at once, none missing", async () => {
        const second = await openStore({ databaseUrl: testStore.database.databaseUrl, dataDir: testStore.database.dataDir });
        try {
          const running = new Set<number>();
          const counts = new Map<number, number>();
          let overlaps = 0;
          const handler = async (job: { payload: { n: number } }) => {
            const n = job.payload.n;
            if (running.has(n)) overlaps++;
            running.add(n);
            await new Promise((resolve) => setImmediate(resolve));
            running.delete(n);
            counts.set(n, (counts.get(n) ?? 0) + 1);
          };
          const workers = [newQueue({ store }), newQueue({ store: second })];
          for (const w of workers) w.handle("bulk", handler, { concurrency: 32 });
          const TOTAL = 10_000;
          for (let i = 0; i < TOTAL; i += 1000) {
            await workers[0]!.enqueue(
              store.db,
              Array.from({ length: 1000 }, (_, k) => ({ type: "bulk", payload: { n: i + k } })),
            );
          }
          for (const w of workers) w.start();
          await waitFor(() => counts.size === TOTAL, 60_000);
          await waitFor(
            async () => (await store.db.selectFrom("jobs").select("id").where("type", "=", "bulk").execute()).length === 0,
            10_000,
          );
          assert.equal(overlaps, 0);
          assert.equal([...counts.values()].filter((c) => c !== 1).length, 0, "every job ran exactly once");
          for (const w of workers) await w.stop();
        } finally {
          await second.close();
        }
      });
    }
  });
}
