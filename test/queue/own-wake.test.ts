// PostgreSQL: jobs added in a scoped transaction wake this process's workers in-process once
// it commits (not before), and this process's listener skips the NOTIFY that names it, while
// other processes' NOTIFYs still wake it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { enqueueJobs } from "../../src/queue/enqueue.js";
import { postgresQueueDialect } from "../../src/queue/postgres-queue-dialect.js";
import { JOBS_CHANNEL } from "../../src/queue/queue-dialect.js";
import { encodeWakeSignal, onJobsAdded, THIS_PROCESS, type WakeSignal } from "../../src/queue/wake.js";
import type { Store } from "../../src/store/store.js";
import { inScopedTransaction } from "../../src/store/transaction-scope.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";

describe("own wake-ups on PostgreSQL", { skip: !DIALECTS.includes("postgres") && "needs TEST_DATABASE_URL" }, () => {
  let testStore: TestStore;
  let store: Store;
  before(async () => {
    testStore = await openTestStore("postgres");
    store = testStore.store;
  });
  after(async () => {
    await testStore.close();
  });

  it("wakes this process in-process as the commit returns, and not before", async () => {
    const signals: WakeSignal[] = [];
    const stop = onJobsAdded((signal) => signals.push(signal));
    try {
      await inScopedTransaction(store.db, async (tx) => {
        await enqueueJobs(tx, [{ type: "own-wake", payload: {}, concurrencyKey: "k1" }], Date.now());
        assert.equal(signals.length, 0, "not before the commit");
      });
      assert.deepEqual(signals, [{ types: ["own-wake"], dueNow: true, keys: ["k1"] }]);
    } finally {
      stop();
    }
  });

  it("skips NOTIFYs that name this process and hears the others", async () => {
    const heard: Array<WakeSignal | undefined> = [];
    const listener = await postgresQueueDialect(testStore.database.databaseUrl!, pino({ level: "silent" })).listen((signal) =>
      heard.push(signal),
    );
    try {
      heard.length = 0; // the catch-up wake-up on connecting
      const notify = (signal: WakeSignal) => store.pool!.query("select pg_notify($1, $2)", [JOBS_CHANNEL, encodeWakeSignal(signal)]);
      await notify({ types: ["mine"], dueNow: true, origin: THIS_PROCESS });
      await notify({ types: ["theirs"], dueNow: true, origin: "another-process" });
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(heard, [{ types: ["theirs"], dueNow: true, origin: "another-process" }]);
    } finally {
      await listener.close();
    }
  });
});
