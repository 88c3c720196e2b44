// Timer runs are queued with their account as concurrency key: an account whose many slow
// timers come due at once runs a few of them at a time, and another account's timer due just
// after them starts at once instead of waiting behind all of them.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { FakeClock } from "../../src/lib/clock.js";
import { fireDueTimers } from "../../src/scheduler/fire-due-timers.js";
import { createSource, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

const SLOW_TIMER = `export default {
  name: "slow-timer",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } },
  async run(event) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    this.$emit({ timestamp: event.timestamp });
  },
};`;

const QUICK_TIMER = `export default {
  name: "quick-timer",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } },
  async run(event) {
    this.$emit({ timestamp: event.timestamp });
  },
};`;

for (const dialect of DIALECTS) {
  describe(`timer fairness between accounts [${dialect}]`, () => {
    let app: TestApp;
    const clock = new FakeClock(T0);
    before(async () => {
      app = await startTestApp(dialect, {}, { clock, roles: ["api", "worker"] });
    });
    after(async () => app.close());

    it("another account's timer does not wait behind one account's 20 slow timers", async () => {
      clock.set(T0);
      const busy = await app.newAccount({ plan: "paid" });
      const other = await app.newAccount({ plan: "paid" });
      const first = await createSource(busy.api, { component_code: SLOW_TIMER });
      const slow = [
        first,
        ...(await Promise.all(Array.from({ length: 19 }, () => createSource(busy.api, { component_id: first.component_id })))),
      ];
      clock.set(T0 + 1); // the other account's timer comes due just after them
      const quick = await createSource(other.api, { component_code: QUICK_TIMER });

      // Claimed ahead, so each run is queued for its own due time: the slow ones come first.
      clock.set(T0 + 59_600);
      const fired = await fireDueTimers(app.sluice.services.ctx, app.sluice.services.queue, { lookaheadMs: 1000 });
      assert.equal(fired.filter((id) => id === quick.id || slow.some((s) => s.id === id)).length, 21);
      clock.set(T0 + 60_001);
      await waitForEvents(other.api, quick.id, 1);
      // Sharing the worker's 16 timer slots in due order, the quick run would start only once
      // slow runs (2 s each, 4 at a time in the account's runners) had freed a slot for it.
      const slowDone = (await Promise.all(slow.map((s) => summaries(busy.api, s.id)))).filter((events) => events.length > 0).length;
      assert.ok(slowDone < 3, `the quick timer ran after ${slowDone} slow runs had finished`);
    });
  });
}
