// Nothing in the queue retries forever: a job that throws every time, or whose worker dies
// every time, is dead after its type's maximum of attempts (moved to dead_jobs, never claimed
// again) until it is sent back; a type with a retry schedule of its own keeps its schedule.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { systemClock } from "../../src/lib/clock.js";
import { createJobQueue } from "../../src/queue/create-job-queue.js";
import type { DbJobQueue } from "../../src/queue/db-job-queue.js";
import { reviveJob } from "../../src/queue/dead-jobs.js";
import { jobCountsByState } from "../../src/queue/job-states.js";
import { postgresQueueDialect } from "../../src/queue/postgres-queue-dialect.js";
import { sqliteQueueDialect } from "../../src/queue/sqlite-queue-dialect.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { waitFor } from "../helpers/wait-for.js";

const logger = pino({ level: "silent" });
const MAX = 3;

for (const dialect of DIALECTS) {
  describe(`dead jobs [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    const queues: DbJobQueue[] = [];
    // Retries after 5 ms instead of seconds: the test waits for conditions, never for backoff.
    const newQueue = (options: { pollMs?: number } = {}) => {
      const queue = createJobQueue({
        store,
        clock: systemClock,
        logger,
        pollMs: options.pollMs ?? 60_000,
        maxAttempts: MAX,
        retryBackoffMs: () => 5,
      });
      queues.push(queue);
      return queue;
    };
    const jobsOf = (type: string) => store.db.selectFrom("jobs").selectAll().where("type", "=", type).execute();
    const deadOf = (type: string) => store.db.selectFrom("dead_jobs").selectAll().where("type", "=", type).execute();

    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      for (const queue of queues) await queue.stop();
      await testStore.close();
    });

    it("a job that always throws is dead after the maximum of attempts, is not claimed again, and runs again once revived", async () => {
      const queue = newQueue({ pollMs: 20 });
      const attempts: number[] = [];
      queue.handle("poison", async (job) => {
        attempts.push(job.attempts);
        throw new Error(`poisoned on attempt ${job.attempts}`);
      });
      queue.start();
      await queue.enqueue(store.db, [{ type: "poison", payload: { n: 1 }, userId: "u_dead" }]);
      await waitFor(async () => (await deadOf("poison")).length === 1, 10_000);
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.deepEqual(await jobsOf("poison"), []);
      const [dead] = await deadOf("poison");
      assert.equal(dead!.attempts, MAX);
      assert.equal(dead!.last_error, "poisoned on attempt 3");
      assert.equal(dead!.user_id, "u_dead");
      assert.deepEqual(JSON.parse(dead!.payload), { n: 1 });
      assert.ok(Number(dead!.died_at) >= Number(dead!.created_at));
      assert.equal((await jobCountsByState(store.db, Date.now())).dead, 1);

      // Not claimed again: a later job of the type runs (the worker polls every 20 ms), the dead one does not.
      await queue.enqueue(store.db, [{ type: "poison", payload: { n: 2 } }]);
      await waitFor(async () => (await deadOf("poison")).length === 2, 10_000);
      assert.equal(attempts.length, 6);

      // Sent back: due now, attempts from 1 again, its id kept.
      assert.equal(await reviveJob(store.db, dead!.id, Date.now()), "revived");
      await waitFor(() => attempts.length === 9, 10_000);
      assert.deepEqual(attempts.slice(6), [1, 2, 3]);
      await waitFor(async () => (await deadOf("poison")).length === 2, 10_000);
      assert.ok((await deadOf("poison")).some((row) => row.id === dead!.id));
      assert.equal(await reviveJob(store.db, "job_unknown", Date.now()), "unknown");
      await queue.stop();
    });

    it("a job whose lease ran out at its last attempt (its worker died) is dead without running again", async () => {
      // Three claims by workers that "died": each lease ran out long ago (times in the past).
      const t0 = Date.now() - 60_000;
      await newQueue().enqueue(store.db, [{ type: "killer", payload: {}, runAt: t0 }]);
      const claimDialect = dialect === "postgres" ? postgresQueueDialect(testStore.database.databaseUrl!, logger) : sqliteQueueDialect;
      for (let i = 0; i < MAX; i++) {
        const claimed = await claimDialect.claim(store.db, {
          type: "killer",
          limit: 1,
          now: t0 + i * 1000,
          leaseMs: 100,
          token: `dead.${i}`,
          busyKeys: [],
          perKey: 0,
        });
        assert.equal(claimed.length, 1);
      }
      const queue = newQueue({ pollMs: 20 });
      let runs = 0;
      queue.handle("killer", async () => void runs++);
      queue.start();
      await waitFor(async () => (await deadOf("killer")).length === 1, 10_000);
      assert.equal(runs, 0);
      const [dead] = await deadOf("killer");
      assert.equal(dead!.attempts, MAX + 1);
      assert.match(dead!.last_error ?? "", /attempt 3 of 3 never finished \(its lease ran out/);
      assert.deepEqual(await jobsOf("killer"), []);
      await queue.stop();
    });

    it("a type with its own maximum (a retry schedule) takes all its attempts, and asking for one more past it ends dead", async () => {
      const queue = newQueue();
      const attempts: number[] = [];
      // Like a webhook delivery with a schedule of 8 attempts: { retryAt } until the last, which finishes.
      queue.handle(
        "scheduled",
        async (job) => {
          attempts.push(job.attempts);
          if (job.attempts < 8) return { retryAt: Date.now() };
        },
        { maxAttempts: 8 + MAX },
      );
      queue.handle("greedy", async () => ({ retryAt: Date.now() }));
      queue.start();
      await queue.enqueue(store.db, [
        { type: "scheduled", payload: {} },
        { type: "greedy", payload: {} },
      ]);
      await waitFor(() => attempts.length === 8, 10_000);
      assert.deepEqual(attempts, [1, 2, 3, 4, 5, 6, 7, 8]);
      await waitFor(async () => (await jobsOf("scheduled")).length === 0, 10_000);
      assert.deepEqual(await deadOf("scheduled"), []);
      await waitFor(async () => (await deadOf("greedy")).length === 1, 10_000);
      assert.match((await deadOf("greedy"))[0]!.last_error ?? "", /asked for another attempt after attempt 3 of 3/);
      await queue.stop();
    });
  });
}
