import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { intervalSecondsOf, nextRunAfter, timerSpecOf } from "../../src/domain/sources/timer-spec.js";
import { ServiceError } from "../../src/lib/errors.js";

const prop = (extra: Record<string, unknown> = {}) => ({ name: "timer", type: "$.interface.timer", ...extra });

describe("timer schedules", () => {
  it("configured_props override the default, which overrides the legacy placement", () => {
    assert.deepEqual(timerSpecOf(prop({ default: { intervalSeconds: 60 } }), { intervalSeconds: 120 }, 15), {
      intervalSeconds: 120,
      cron: null,
    });
    assert.deepEqual(timerSpecOf(prop({ default: { intervalSeconds: 60 } }), undefined, 15), { intervalSeconds: 60, cron: null });
    assert.deepEqual(timerSpecOf(prop({ cron: "0 * * * *" }), undefined, 15), { intervalSeconds: null, cron: "0 * * * *" });
    assert.deepEqual(timerSpecOf(prop({ default: { intervalSeconds: 60 } }), { cron: "*/5 * * * *" }, 15), {
      intervalSeconds: null,
      cron: "*/5 * * * *",
    });
  });

  it("refuses intervals and cron schedules under the minimum, and bad cron", () => {
    assert.throws(
      () => timerSpecOf(prop(), { intervalSeconds: 5 }, 15),
      (e: unknown) => e instanceof ServiceError && e.code === "VALIDATION" && /at least 15/.test(e.message),
    );
    assert.throws(
      () => timerSpecOf(prop(), { cron: "* * * * * *" }, 15),
      (e: unknown) => e instanceof ServiceError && /minimum is 15/.test(e.message),
    );
    assert.throws(
      () => timerSpecOf(prop(), { cron: "not a cron" }, 15),
      (e: unknown) => e instanceof ServiceError && /invalid cron/.test(e.message),
    );
    assert.throws(
      () => timerSpecOf(prop(), { intervalSeconds: 1e20 }, 15),
      (e: unknown) => e instanceof ServiceError && /at most/.test(e.message),
    );
    assert.throws(
      () => timerSpecOf(prop(), "every minute", 15),
      (e: unknown) => e instanceof ServiceError && /must be an object/.test(e.message),
    );
  });

  it("computes the next run in UTC, strictly after the given time", () => {
    const at = Date.UTC(2026, 0, 1, 10, 3, 0);
    assert.equal(nextRunAfter({ intervalSeconds: 60, cron: null }, at), at + 60_000);
    assert.equal(nextRunAfter({ intervalSeconds: null, cron: "*/5 * * * *" }, at), Date.UTC(2026, 0, 1, 10, 5, 0));
    assert.equal(nextRunAfter({ intervalSeconds: null, cron: "0 12 * * *" }, at), Date.UTC(2026, 0, 1, 12, 0, 0));
    assert.equal(intervalSecondsOf({ intervalSeconds: null, cron: "*/5 * * * *" }), 300);
  });

  it("runs a cron schedule in the time zone given with it, kept as a CRON_TZ= prefix; UTC needs none", () => {
    const paris = timerSpecOf(prop(), { cron: "0 9 * * *", timezone: "Europe/Paris" }, 15);
    assert.deepEqual(paris, { intervalSeconds: null, cron: "CRON_TZ=Europe/Paris 0 9 * * *" });
    // 09:00 in Paris is 08:00 UTC in winter and 07:00 UTC in summer.
    assert.equal(nextRunAfter(paris, Date.UTC(2026, 0, 1, 0, 0, 0)), Date.UTC(2026, 0, 1, 8, 0, 0));
    assert.equal(nextRunAfter(paris, Date.UTC(2026, 6, 1, 0, 0, 0)), Date.UTC(2026, 6, 1, 7, 0, 0));
    assert.equal(intervalSecondsOf(paris), 24 * 3600);
    assert.deepEqual(timerSpecOf(prop(), { cron: "0 9 * * *", timezone: "UTC" }, 15), { intervalSeconds: null, cron: "0 9 * * *" });
    assert.deepEqual(timerSpecOf(prop(), { cron: "CRON_TZ=Asia/Tokyo 0 9 * * *" }, 15), {
      intervalSeconds: null,
      cron: "CRON_TZ=Asia/Tokyo 0 9 * * *",
    });
    for (const timezone of ["Mars/Olympus", "../../etc/passwd", "x".repeat(100)])
      assert.throws(
        () => timerSpecOf(prop(), { cron: "0 9 * * *", timezone }, 15),
        (e: unknown) => e instanceof ServiceError && /unknown timezone/.test(e.message),
        timezone,
      );
    assert.throws(
      () => timerSpecOf(prop(), { cron: "CRON_TZ=Nowhere/At_All 0 9 * * *" }, 15),
      (e: unknown) => e instanceof ServiceError && /unknown timezone/.test(e.message),
    );
  });
});
