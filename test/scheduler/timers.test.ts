// Timers with a fake clock: interval and cron runs, the run event, one catch-up run after
// downtime, claims that never double-fire (also from two processes' worth of schedulers on
// one database), disabled sources, quota-skipped runs, and the scheduler loop end to end.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { FakeClock } from "../../src/lib/clock.js";
import { fireDueTimers } from "../../src/scheduler/fire-due-timers.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitForLeaseRelease } from "../helpers/source-lease.js";

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

for (const dialect of DIALECTS) {
  describe(`timers [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    const clock = new FakeClock(T0);
    // Whether this source's timer fired in one claim pass (other tests' sources may fire too).
    const fire = async (): Promise<string[]> => fireDueTimers(app.sluice.services.ctx, app.sluice.services.queue);
    const fired = async (sourceId: string) => (await fire()).includes(sourceId);
    before(async () => {
      app = await startTestApp(dialect, {}, { clock, roles: ["api", "worker"] });
      account = await app.newAccount();
    });
    after(async () => app.close());

    it("runs an interval timer once per interval with {timestamp, interval_seconds}; one catch-up run after downtime", async () => {
      clock.set(T0);
      const source = await createSource(account.api, { component_code: fixtureCode("timer-interval.mjs") });
      assert.equal(await fired(source.id), false, "not due before its interval");
      clock.advance(59_000);
      assert.equal(await fired(source.id), false);
      clock.advance(1_000);
      assert.equal(await fired(source.id), true);
      assert.equal(await fired(source.id), false, "claimed once");
      const [first] = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(first.event, { runs: 1, timestamp: T0 / 1000 + 60, interval_seconds: 60 });
      await waitForLeaseRelease(app, source.id);

      clock.advance(10 * 60_000); // ten intervals of downtime
      assert.equal(await fired(source.id), true);
      assert.equal(await fired(source.id), false, "one catch-up run, not a burst");
      const [second] = await waitForEvents(account.api, source.id, 2);
      assert.deepEqual(second.event, { runs: 2, timestamp: T0 / 1000 + 660, interval_seconds: 60 });
      await waitForLeaseRelease(app, source.id);
      clock.advance(60_000);
      assert.equal(await fired(source.id), true, "back on schedule one interval later");
      await waitForEvents(account.api, source.id, 3);
    });

    it("a timer source without run() emits each timer event as it is", async () => {
      clock.set(T0);
      const code = `export default { key: "no-run-timer", props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 30 } } } };`;
      const source = await createSource(account.api, { component_code: code });
      clock.advance(30_000);
      assert.equal(await fired(source.id), true);
      const [event] = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(event.event, { timestamp: T0 / 1000 + 30, interval_seconds: 30 });
      const withoutTimer = await account.api.post("/sources", {
        component_code: `export default { key: "no-run-http", props: { http: "$.interface.http" } };`,
      });
      assert.equal(withoutTimer.status, 400);
      assert.match(withoutTimer.body.error, /no run\(\) method.*only a timer source/);
    });

    it("runs a cron timer (UTC) at its next matching minute", async () => {
      clock.set(T0 + 60_000); // 00:01
      const source = await createSource(account.api, { component_code: fixtureCode("timer-cron-legacy.cjs") });
      clock.set(T0 + 4 * 60_000 + 59_000);
      assert.equal(await fired(source.id), false);
      clock.set(T0 + 5 * 60_000);
      assert.equal(await fired(source.id), true);
      const [run] = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(run.event, { fired_at: T0 / 1000 + 300, interval_seconds: 300 });
    });

    it("never double-fires when several schedulers claim at once (on PostgreSQL also from another process's pool)", async () => {
      clock.set(T0 + 3_600_000);
      const source = await createSource(account.api, {
        component_code: fixtureCode("timer-interval.mjs"),
        configured_props: { timer: { intervalSeconds: 30 } },
      });
      // A second Sluice on the same PostgreSQL database stands for another process. SQLite
      // serves one process (docs/architecture.md, "Transactions"), so there the concurrent claims share one store.
      const other =
        dialect === "postgres" ? await startTestApp(dialect, {}, { clock, roles: ["worker"], database: app.database }) : undefined;
      try {
        const otherFire = other ? () => fireDueTimers(other.sluice.services.ctx, other.sluice.services.queue) : fire;
        clock.advance(30_000);
        const claims = await Promise.all([fire(), fire(), otherFire(), otherFire()]);
        assert.equal(claims.flat().filter((id) => id === source.id).length, 1);
        await waitForEvents(account.api, source.id, 1);
      } finally {
        await other?.close();
      }
    });

    it("disabled sources do not fire; enabling schedules them again", async () => {
      clock.set(T0 + 7_200_000);
      const source = await createSource(account.api, { component_code: fixtureCode("timer-interval.mjs") });
      await account.api.put(`/sources/${source.id}`, { component_id: source.component_id, active: false });
      clock.advance(120_000);
      assert.equal(await fired(source.id), false);
      await account.api.put(`/sources/${source.id}`, { component_id: source.component_id, active: true });
      clock.advance(60_000);
      assert.equal(await fired(source.id), true);
      await waitForEvents(account.api, source.id, 1);
    });

    it("the scheduler role's loop fires due timers by itself", async () => {
      const loopClock = new FakeClock(T0);
      const withLoop = await startTestApp(dialect, {}, { clock: loopClock });
      try {
        const owner = await withLoop.newAccount();
        const source = await createSource(owner.api, { component_code: fixtureCode("timer-interval.mjs") });
        loopClock.advance(60_000);
        const [run] = await waitForEvents(owner.api, source.id, 1);
        assert.deepEqual(run.event, { runs: 1, timestamp: T0 / 1000 + 60, interval_seconds: 60 });
      } finally {
        await withLoop.close();
      }
    });
  });

  describe(`timer quotas [${dialect}]`, () => {
    let app: TestApp;
    const clock = new FakeClock(T0);
    before(async () => {
      app = await startTestApp(dialect, { freeDailyInvocations: 1 }, { clock, roles: ["api", "worker"] });
    });
    after(async () => app.close());

    it("over quota, scheduled runs are skipped and reported on $errors", async () => {
      const account = await app.newAccount();
      const fired = async (sourceId: string) =>
        (await fireDueTimers(app.sluice.services.ctx, app.sluice.services.queue)).includes(sourceId);
      const source = await createSource(account.api, { component_code: fixtureCode("timer-interval.mjs") });
      clock.advance(60_000);
      assert.equal(await fired(source.id), true);
      await waitForEvents(account.api, source.id, 1);
      await waitForLeaseRelease(app, source.id);
      clock.advance(60_000);
      assert.equal(await fired(source.id), true);
      const [skipped] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors" });
      assert.equal(skipped.event.error.name, "QuotaExceeded");
      assert.match(skipped.event.error.message, /quota/);
      assert.equal(skipped.event.original_event.interval_seconds, 60);
      assert.equal((await summaries(account.api, source.id)).length, 1, "the skipped run emitted nothing");
    });
  });
}
