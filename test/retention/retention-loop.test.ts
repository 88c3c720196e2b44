// The worker's retention loop: passes run on their own, each logged with what it removed.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { ConfigError, loadConfig } from "../../src/config.js";
import { DAY_MS, pruneExpired } from "../../src/domain/retention/prune-expired.js";
import { passIntervalMs, startRetentionLoop } from "../../src/domain/retention/retention-loop.js";
import { FakeClock } from "../../src/lib/clock.js";
import { newTimeOrderedId } from "../../src/lib/ids.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { waitFor } from "../helpers/wait-for.js";
import { testContext } from "../helpers/test-context.js";

describe("retention period", () => {
  it("takes fractions of a day down to a minute, and passes run ten times per period when it is under ten hours", () => {
    assert.equal(loadConfig({ SLUICE_DELIVERY_RETENTION_DAYS: "0.25" }).deliveryRetentionDays, 0.25);
    assert.throws(
      () => loadConfig({ SLUICE_DELIVERY_RETENTION_DAYS: "0.0001" }),
      (error: Error) => error instanceof ConfigError && /SLUICE_DELIVERY_RETENTION_DAYS must be a number >= 0.000694/.test(error.message),
    );
    assert.throws(() => loadConfig({ SLUICE_DELIVERY_RETENTION_DAYS: "soon" }), ConfigError);
    assert.equal(passIntervalMs(30), 60 * 60_000);
    assert.equal(passIntervalMs(0.25), 36 * 60_000);
    assert.equal(passIntervalMs(5 / (24 * 60)), 30_000);
  });
});

for (const dialect of DIALECTS) {
  describe(`retention loop [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      await testStore.close();
    });

    it("prunes in the background and logs each pass with its counts", async () => {
      const clock = new FakeClock(Date.UTC(2026, 5, 1));
      const old = clock.now() - 8 * DAY_MS;
      await store.db
        .insertInto("deliveries")
        .values({
          id: newTimeOrderedId("del", old),
          user_id: "u_x",
          listener_id: "wh_x",
          emitter_id: "dc_x",
          event_id: "1-0",
          stream: "",
          event: "{}",
          hops: 0,
          status: "failed",
          attempts: 1,
          next_attempt_at: null,
          last_attempt_at: old,
          created_at: old,
          updated_at: old,
        })
        .execute();
      const entries: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          entries.push(JSON.parse(String(chunk)));
          done();
        },
      });
      const ctx = testContext(store, {
        clock,
        logger: pino({ level: "info" }, sink),
        config: loadConfig({ SLUICE_DELIVERY_RETENTION_DAYS: "7" }),
      });
      const loop = startRetentionLoop(ctx, { firstDelayMs: 0, intervalMs: 10, pauseMs: 0, freePages: store.freePages });
      try {
        await waitFor(() => entries.filter((entry) => /^retention pass/.test(String(entry.msg))).length >= 2);
      } finally {
        await loop.stop();
      }
      const passes = entries.filter((entry) => /^retention pass/.test(String(entry.msg)));
      assert.match(
        String(passes[0]!.msg),
        /pruned 1 deliveries, 0 attempts, 0 \$logs events and 0 workflow runs older than 7 days, and 0 expired data store records/,
      );
      assert.equal(passes[0]!.deliveries, 1);
      assert.equal(passes[1]!.deliveries, 0);
      const count = await store.db.selectFrom("deliveries").select("id").execute();
      assert.equal(count.length, 0);
    });

    it("prunes by the hour when the period is a fraction of a day", async () => {
      const clock = new FakeClock(Date.UTC(2026, 5, 1));
      const at = (hoursAgo: number) => clock.now() - hoursAgo * 60 * 60_000;
      for (const [id, created] of [
        ["older", at(7)],
        ["newer", at(5)],
      ] as const) {
        await store.db
          .insertInto("deliveries")
          .values({
            id: newTimeOrderedId("del", created),
            user_id: "u_x",
            listener_id: "wh_x",
            emitter_id: "dc_x",
            event_id: id,
            stream: "",
            event: "{}",
            hops: 0,
            status: "succeeded",
            attempts: 1,
            next_attempt_at: null,
            last_attempt_at: created,
            created_at: created,
            updated_at: created,
          })
          .execute();
      }
      const ctx = testContext(store, { clock, config: loadConfig({ SLUICE_DELIVERY_RETENTION_DAYS: "0.25" }) });
      const counts = await pruneExpired(ctx, { pauseMs: 0 });
      assert.equal(counts.deliveries, 1);
      const left = await store.db.selectFrom("deliveries").select("event_id").execute();
      assert.deepEqual(
        left.map((row) => row.event_id),
        ["newer"],
      );
    });
  });
}
