// Retention on both databases, dated by a fake clock: finished deliveries (with their attempts)
// and $logs events older than the retention period go; recent ones, pending deliveries of any
// age and events of other streams stay; every deleting statement stays within the batch size.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KyselyPlugin } from "kysely";
import { loadConfig } from "../../src/config.js";
import { DAY_MS, pruneExpired } from "../../src/domain/retention/prune-expired.js";
import { FakeClock } from "../../src/lib/clock.js";
import { newId, newTimeOrderedId, randomString } from "../../src/lib/ids.js";
import type { DeliveriesTable } from "../../src/store/schema.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { testContext } from "../helpers/test-context.js";

/** Rows each statement changed, as Kysely reports them. */
function changedRows(seen: number[]): KyselyPlugin {
  return {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      if (args.result.numAffectedRows !== undefined) seen.push(Number(args.result.numAffectedRows));
      return args.result;
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`retention [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    const clock = new FakeClock(Date.UTC(2026, 5, 1));
    const config = loadConfig({ SLUICE_DELIVERY_RETENTION_DAYS: "30" });
    const userId = newId("u");
    const context = (db = store.db) => testContext(store, { db, clock, config });

    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => {
      await testStore.close();
    });

    async function delivery(
      ageDays: number,
      status: DeliveriesTable["status"],
      attempts = 1,
      id = newTimeOrderedId("del", clock.now() - ageDays * DAY_MS),
    ): Promise<string> {
      const at = clock.now() - ageDays * DAY_MS;
      await store.db
        .insertInto("deliveries")
        .values({
          id,
          user_id: userId,
          listener_id: "wh_x",
          emitter_id: "dc_x",
          event_id: `${at}-0`,
          stream: "",
          event: "{}",
          hops: 0,
          status,
          attempts,
          next_attempt_at: null,
          last_attempt_at: at,
          created_at: at,
          updated_at: at,
        })
        .execute();
      for (let i = 0; i < attempts; i++) {
        await store.db
          .insertInto("delivery_attempts")
          .values({
            id: newTimeOrderedId("att", at),
            delivery_id: id,
            attempted_at: at,
            status_code: 200,
            duration_ms: 1,
            response_excerpt: null,
            error: null,
          })
          .execute();
      }
      return id;
    }

    async function event(emitterId: string, stream: string, ageDays: number, seq = 0): Promise<void> {
      const ms = clock.now() - ageDays * DAY_MS;
      await store.db
        .insertInto("events")
        .values({ emitter_id: emitterId, ms, seq, id: `${ms}-${seq}`, user_id: userId, stream, event: '"x"', metadata: "{}" })
        .execute();
    }

    const exists = async (id: string) => (await store.db.selectFrom("deliveries").select("id").where("id", "=", id).execute()).length === 1;
    const attemptsOf = async (id: string) =>
      (await store.db.selectFrom("delivery_attempts").select("id").where("delivery_id", "=", id).execute()).length;
    const streamCount = async (emitterId: string, stream: string) =>
      (await store.db.selectFrom("events").select("id").where("emitter_id", "=", emitterId).where("stream", "=", stream).execute()).length;

    it("removes finished deliveries and $logs events past the period, and nothing else", async () => {
      const oldSucceeded = await delivery(45, "succeeded", 2);
      const oldFailed = await delivery(31, "failed", 3);
      const oldPending = await delivery(60, "pending", 1);
      const recentSucceeded = await delivery(29, "succeeded", 1);
      const recentFailed = await delivery(1, "failed", 1);
      const emitter = newId("dc");
      await event(emitter, "$logs", 40, 0);
      await event(emitter, "$logs", 40, 1);
      await event(emitter, "$logs", 2);
      await event(emitter, "", 40, 2);
      await event(emitter, "$errors", 40, 3);

      const counts = await pruneExpired(context(), { pauseMs: 0 });

      assert.equal(counts.deliveries, 2);
      assert.equal(counts.attempts, 5);
      assert.equal(counts.logEvents, 2);
      assert.equal(await exists(oldSucceeded), false);
      assert.equal(await attemptsOf(oldSucceeded), 0);
      assert.equal(await exists(oldFailed), false);
      assert.equal(await attemptsOf(oldFailed), 0);
      assert.equal(await exists(oldPending), true, "a pending delivery stays, however old");
      assert.equal(await attemptsOf(oldPending), 1);
      assert.equal(await exists(recentSucceeded), true);
      assert.equal(await exists(recentFailed), true);
      assert.equal(await streamCount(emitter, "$logs"), 1);
      assert.equal(await streamCount(emitter, ""), 1, "other streams are trimmed by count, not by age");
      assert.equal(await streamCount(emitter, "$errors"), 1);
      const storage = await store.db
        .selectFrom("emitter_storage")
        .select("bytes")
        .where("emitter_id", "=", emitter)
        .executeTakeFirstOrThrow();
      assert.equal(Number(storage.bytes), 3 * ('"x"'.length + "{}".length), "the account's storage usage follows");

      const again = await pruneExpired(context(), { pauseMs: 0 });
      assert.deepEqual([again.deliveries, again.attempts, again.logEvents], [0, 0, 0]);
    });

    it("a delivery finished again after a resend counts from its last change", async () => {
      const id = await delivery(40, "succeeded");
      await store.db
        .updateTable("deliveries")
        .set({ updated_at: clock.now() - 3 * DAY_MS })
        .where("id", "=", id)
        .execute();
      await pruneExpired(context(), { pauseMs: 0 });
      assert.equal(await exists(id), true);
    });

    it("also reaches deliveries made before ids were time-ordered (random ids), past the recent ones", async () => {
      for (let i = 0; i < 6; i++) await delivery(1, "succeeded");
      const legacy = await delivery(90, "failed", 1, `del_z${randomString(15)}`);
      const legacyPending = await delivery(90, "pending", 1, `del_y${randomString(15)}`);
      await pruneExpired(context(), { pauseMs: 0, batchSize: 3 });
      assert.equal(await exists(legacy), false);
      assert.equal(await exists(legacyPending), true);
    });

    it("deletes in batches no larger than the batch size", async () => {
      for (let i = 0; i < 23; i++) await delivery(50 + i / 100, "succeeded");
      const emitters = Array.from({ length: 7 }, () => newId("p"));
      for (const emitter of emitters) for (let seq = 0; seq < 4; seq++) await event(emitter, "$logs", 35, seq);
      const kept = await delivery(5, "succeeded");

      const changed: number[] = [];
      const counts = await pruneExpired(context(store.db.withPlugin(changedRows(changed))), { pauseMs: 0, batchSize: 10 });

      assert.equal(counts.deliveries, 23);
      assert.equal(counts.logEvents, 28);
      assert.ok(counts.batches >= 3 + 3, `deliveries in 3 batches and events in at least 3, got ${counts.batches}`);
      assert.ok(changed.length > 0 && Math.max(...changed) <= 10, `every statement changed at most 10 rows: ${changed.join(",")}`);
      assert.equal(await exists(kept), true);
      for (const emitter of emitters) assert.equal(await streamCount(emitter, "$logs"), 0);
    });
  });
}
