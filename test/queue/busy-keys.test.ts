// Keys at their limit, on each dialect: new jobs of such a key wait for it without a claim per
// wake-up, while jobs of other keys (ordered before, between or after the busy keys, or with
// no key; due now or later) run on time — the safety poll is a minute here, so only the
// wake-ups and the next-due query's index ranges around busy keys can explain it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { systemClock } from "../../src/lib/clock.js";
import { completeJobs } from "../../src/queue/job-rows.js";
import { createJobQueue } from "../../src/queue/create-job-queue.js";
import type { DbJobQueue } from "../../src/queue/db-job-queue.js";
import { decodeWakeSignal, encodeWakeSignal, wakeSignalFor } from "../../src/queue/wake.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { waitFor } from "../helpers/wait-for.js";

const logger = pino({ level: "silent" });

describe("wake signals", () => {
  it("name the keys of added jobs only when every job has one", () => {
    const keyed = wakeSignalFor(
      [
        { type: "t", run_at: 1, concurrency_key: "k1" },
        { type: "t", run_at: 1, concurrency_key: "k2" },
      ],
      5,
    );
    assert.deepEqual(decodeWakeSignal(encodeWakeSignal(keyed)), { types: ["t"], dueNow: true, keys: ["k1", "k2"] });
    const mixed = wakeSignalFor(
      [
        { type: "t", run_at: 9, concurrency_key: "k1" },
        { type: "u", run_at: 1, concurrency_key: null },
      ],
      5,
    );
    assert.deepEqual(decodeWakeSignal(encodeWakeSignal(mixed)), { types: ["t", "u"], dueNow: false });
    assert.equal(decodeWakeSignal("now:t"), undefined, "an unknown payload means: anything may be due");
  });
});

for (const dialect of DIALECTS) {
  describe(`job queue with busy keys [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    let queue: DbJobQueue;

    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      await queue?.stop();
      await testStore.close();
    });

    it("runs other keys' jobs on time while keys are at their limit, and the busy keys' backlog once they free", async () => {
      queue = createJobQueue({ store, clock: systemClock, logger, pollMs: 60_000 });
      const ran: Array<{ key: string; at: number }> = [];
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      queue.handle(
        "keyed",
        async (job) => {
          const key = job.payload.key as string;
          if (key === "m" || key === "p") await gate;
          ran.push({ key, at: Date.now() });
        },
        { concurrency: 50, perKeyConcurrency: 2 },
      );
      queue.start();
      const jobs = (key: string | null, count: number, runAt?: number) =>
        Array.from({ length: count }, () => ({ type: "keyed", payload: { key: key ?? "none" }, concurrencyKey: key ?? undefined, runAt }));
      await queue.enqueue(store.db, [...jobs("m", 10), ...jobs("p", 10)]);
      // Both keys fill up (their limit, plus what one claim took beyond it).
      await waitFor(
        async () => (await store.db.selectFrom("jobs").select("id").where("lease_token", "is not", null).execute()).length >= 4,
      );
      await queue.enqueue(store.db, jobs("m", 5)); // more of a busy key
      // One job per range around the busy keys, each due at its own time, so each must be
      // found by the next-due query on its own (a claim takes every due job it sees).
      // A key with room, due now: its wake-up is not skipped for the busy keys.
      const start = Date.now();
      await queue.enqueue(store.db, jobs("b", 1));
      await waitFor(() => ran.length === 1);
      const dueAt = new Map([
        ["b", start],
        ["a", start + 600],
        ["n", start + 1200],
        ["z", start + 1800],
        ["none", start + 2400],
      ]);
      for (const [key, at] of dueAt) if (key !== "b") await queue.enqueue(store.db, jobs(key === "none" ? null : key, 1, at));
      await waitFor(() => ran.length === dueAt.size);
      assert.deepEqual(ran.map((r) => r.key).sort(), [...dueAt.keys()].sort());
      for (const r of ran) {
        const late = r.at - dueAt.get(r.key)!;
        assert.ok(late >= -5 && late < 400, `${r.key} ran ${late} ms after its time`);
      }
      open();
      await waitFor(() => ran.length === 30);
      await waitFor(async () => (await store.db.selectFrom("jobs").select("id").where("type", "=", "keyed").execute()).length === 0);
    });

    it("leaves a job to the handler that removed it in its own statement, and removes only leases still held", async () => {
      await queue.stop();
      queue = createJobQueue({ store, clock: systemClock, logger, pollMs: 60_000 });
      const runs: string[] = [];
      queue.handle("self-completing", async (job) => {
        runs.push(job.id);
        await completeJobs(store.db, [{ id: job.lease!.id, token: "someone-else" }]); // not ours: stays
        assert.equal((await store.db.selectFrom("jobs").select("id").where("id", "=", job.id).execute()).length, 1);
        await completeJobs(store.db, [job.lease!]);
        return { completed: true };
      });
      queue.start();
      await queue.enqueue(store.db, [
        { type: "self-completing", payload: {} },
        { type: "self-completing", payload: {} },
      ]);
      await waitFor(() => runs.length === 2);
      await waitFor(
        async () => (await store.db.selectFrom("jobs").select("id").where("type", "=", "self-completing").execute()).length === 0,
      );
      assert.equal(new Set(runs).size, 2);
    });
  });
}
