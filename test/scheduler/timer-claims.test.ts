// How the scheduler claims timers (src/scheduler/fire-due-timers.ts): timers due within the
// lookahead are claimed early and queued for their due time, which is also the run event's
// timestamp; an overdue timer still gets one run, now; and a batch claimed by several
// schedulers at once fires every timer exactly once (on PostgreSQL also from another process).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { FakeClock } from "../../src/lib/clock.js";
import { SOURCE_TIMER_JOB } from "../../src/domain/sources/source-jobs.js";
import { fireDueTimers } from "../../src/scheduler/fire-due-timers.js";
import { createSource, fixtureCode, waitForEvents } from "../fixtures/components/sources/helpers.js";

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

for (const dialect of DIALECTS) {
  describe(`timer claims [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    const clock = new FakeClock(T0);
    const fire = (options?: Parameters<typeof fireDueTimers>[2]) =>
      fireDueTimers(app.sluice.services.ctx, app.sluice.services.queue, options);
    // When the source's queued timer runs are due (runs a worker took already are left out).
    const queuedRunAt = async (sourceId: string): Promise<number[]> => {
      const jobs = await app.sluice.services.ctx.db
        .selectFrom("jobs")
        .select(["run_at", "payload"])
        .where("type", "=", SOURCE_TIMER_JOB)
        .where("lease_token", "is", null)
        .execute();
      return jobs.filter((job) => JSON.parse(job.payload).sourceId === sourceId).map((job) => Number(job.run_at));
    };
    before(async () => {
      app = await startTestApp(dialect, {}, { clock, roles: ["api", "worker"] });
      account = await app.newAccount();
    });
    after(async () => app.close());

    it("claims a timer due within the lookahead early, queues its run for the due time and stamps the run with it", async () => {
      clock.set(T0);
      const source = await createSource(account.api, { component_code: fixtureCode("timer-interval.mjs") });
      clock.set(T0 + 58_000);
      assert.equal((await fire({ lookaheadMs: 1000 })).includes(source.id), false, "not within the lookahead yet");
      clock.set(T0 + 59_400);
      assert.equal((await fire({ lookaheadMs: 1000 })).includes(source.id), true, "due in 600 ms: claimed now");
      assert.equal((await fire({ lookaheadMs: 1000 })).includes(source.id), false, "claimed once");
      assert.deepEqual(await queuedRunAt(source.id), [T0 + 60_000], "the run waits for its due time, not the claim");
      clock.set(T0 + 60_000);
      const [run] = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(run.event, { runs: 1, timestamp: T0 / 1000 + 60, interval_seconds: 60 }, "the due time, not the claim's 59.4 s");
      clock.set(T0 + 119_500);
      assert.equal((await fire({ lookaheadMs: 1000 })).includes(source.id), true, "the next run stays on the schedule");
      assert.deepEqual(await queuedRunAt(source.id), [T0 + 120_000]);
      clock.set(T0 + 120_000);
      await waitForEvents(account.api, source.id, 2);
    });

    it("an overdue timer gets one run, queued for now, even with a lookahead", async () => {
      clock.set(T0 + 3_600_000);
      const source = await createSource(account.api, { component_code: fixtureCode("timer-interval.mjs") });
      clock.advance(10 * 60_000 + 30_000); // ten and a half intervals of downtime
      const now = clock.now();
      assert.equal((await fire({ lookaheadMs: 1000 })).includes(source.id), true);
      assert.equal((await fire({ lookaheadMs: 1000 })).includes(source.id), false, "one catch-up run, not a burst");
      const [run] = await waitForEvents(account.api, source.id, 1);
      assert.equal(run.event.timestamp, Math.floor(now / 1000));
      clock.advance(59_500);
      assert.equal((await fire({ lookaheadMs: 1000 })).includes(source.id), true, "then every interval from the catch-up run");
      assert.deepEqual(await queuedRunAt(source.id), [now + 60_000]);
    });

    it("several schedulers claiming batches at once fire every timer exactly once", async () => {
      clock.set(T0 + 7_200_000);
      const first = await createSource(account.api, {
        component_code: fixtureCode("timer-interval.mjs"),
        configured_props: { timer: { intervalSeconds: 30 } },
      });
      const others = await Promise.all(
        Array.from({ length: 29 }, () =>
          createSource(account.api, { component_id: first.component_id, configured_props: { timer: { intervalSeconds: 30 } } }),
        ),
      );
      const ids = new Set([first.id, ...others.map((source) => source.id)]);
      // Another Sluice on the same PostgreSQL database stands for another scheduler process.
      const other =
        dialect === "postgres" ? await startTestApp(dialect, {}, { clock, roles: ["worker"], database: app.database }) : undefined;
      try {
        const otherFire = other
          ? () => fireDueTimers(other.sluice.services.ctx, other.sluice.services.queue, { batch: 7 })
          : () => fire({ batch: 7 });
        clock.advance(30_000);
        const fired: string[] = [];
        for (;;) {
          const round = (await Promise.all([fire({ batch: 7 }), fire({ batch: 7 }), otherFire(), otherFire()])).flat();
          if (round.length === 0) break;
          fired.push(...round);
        }
        const ours = fired.filter((id) => ids.has(id));
        assert.equal(ours.length, ids.size, "every timer fired exactly once");
        assert.equal(new Set(ours).size, ids.size);
        const rows = await app.sluice.services.ctx.db
          .selectFrom("sources")
          .select(["id", "next_run_at", "created_at"])
          .where("id", "in", [...ids])
          .execute();
        for (const row of rows) assert.equal(Number(row.next_run_at), Number(row.created_at) + 60_000, "moved on by one interval");
        await waitForEvents(account.api, first.id, 1);
      } finally {
        await other?.close();
      }
    });
  });
}
