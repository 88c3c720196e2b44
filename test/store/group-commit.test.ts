// Grouped transactions on both dialects: units that share a transaction also share its scope
// (one read of an emitter's newest id, one trim per stream, one usage write per account), and
// the result must be exactly what the units would have written one transaction each.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Ctx } from "../../src/domain/context.js";
import { appendEvents, EVENTS_KEPT_PER_STREAM } from "../../src/domain/events/append-events.js";
import { recordUsage } from "../../src/domain/usage/record-usage.js";
import { utcDay } from "../../src/domain/users/billing-period.js";
import { createUser } from "../../src/domain/users/create-user.js";
import { FakeClock } from "../../src/lib/clock.js";
import { inGroupTransaction } from "../../src/store/group-commit.js";
import type { Store } from "../../src/store/store.js";
import { onceBeforeCommit } from "../../src/store/transaction-scope.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { testContext } from "../helpers/test-context.js";

for (const dialect of DIALECTS) {
  describe(`grouped transactions [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    let ctx: Ctx;
    let userId: string;
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 0));
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
      // No hooks on new accounts: these tests count what createUser itself writes.
      ctx = testContext(store, { clock, userCreatedHooks: [] });
      userId = (await createUser({ ctx, input: { username: "grouped", email: "grouped@example.com" } })).id;
    });
    after(async () => {
      await testStore.close();
    });

    it("many executions in one go: every event stored in order, each stream trimmed to the newest 100, every execution counted", async () => {
      const emitterId = "dc_groupedEmitter1";
      const executions = 150;
      const units = Array.from({ length: executions }, (_, i) =>
        inGroupTransaction(ctx.db, async (tx) => {
          await recordUsage(tx, userId, clock.now(), 2.4); // rounds to 2 ms each
          return appendEvents(ctx, tx, {
            userId,
            emitterId,
            nowMs: clock.now(),
            events: [
              { stream: "", event: { i } },
              { stream: "$logs", event: { i } },
            ],
            limits: ctx.eventLimits,
          });
        }),
      );
      const stored = (await Promise.all(units)).flat();

      const ids = stored.map((event) => event.id);
      assert.equal(new Set(ids).size, executions * 2, "ids are unique");
      const keys = ids.map((id) => id.split("-").map(Number) as [number, number]);
      for (let i = 1; i < keys.length; i++) {
        const [ms, seq] = keys[i]!;
        const [prevMs, prevSeq] = keys[i - 1]!;
        assert.ok(ms > prevMs || (ms === prevMs && seq > prevSeq), `ids increase: ${ids[i - 1]} then ${ids[i]}`);
      }

      for (const stream of ["", "$logs"]) {
        const rows = await ctx.db
          .selectFrom("events")
          .select("event")
          .where("emitter_id", "=", emitterId)
          .where("stream", "=", stream)
          .orderBy("ms")
          .orderBy("seq")
          .execute();
        assert.equal(rows.length, EVENTS_KEPT_PER_STREAM, `stream "${stream}" keeps the newest ${EVENTS_KEPT_PER_STREAM}`);
        assert.deepEqual(
          rows.map((row) => JSON.parse(row.event).i),
          Array.from({ length: EVENTS_KEPT_PER_STREAM }, (_, i) => executions - EVENTS_KEPT_PER_STREAM + i),
        );
      }

      const usage = await ctx.db
        .selectFrom("usage_daily")
        .select(["invocations", "compute_ms"])
        .where("user_id", "=", userId)
        .where("day", "=", utcDay(clock.now()))
        .executeTakeFirstOrThrow();
      assert.equal(Number(usage.invocations), executions);
      assert.equal(Number(usage.compute_ms), executions * 2);
    });

    it("a unit that fails does not take its group's merged writes with it", async () => {
      const before = await ctx.db.selectFrom("usage_daily").select("invocations").where("user_id", "=", userId).executeTakeFirstOrThrow();
      const good = Array.from({ length: 5 }, () => inGroupTransaction(ctx.db, (tx) => recordUsage(tx, userId, clock.now(), 1)));
      const bad = inGroupTransaction(ctx.db, async (tx) => {
        await recordUsage(tx, userId, clock.now(), 1);
        throw new Error("this unit fails");
      });
      await Promise.all(good);
      await assert.rejects(bad, /this unit fails/);
      const afterwards = await ctx.db
        .selectFrom("usage_daily")
        .select("invocations")
        .where("user_id", "=", userId)
        .executeTakeFirstOrThrow();
      assert.equal(
        Number(afterwards.invocations) - Number(before.invocations),
        5,
        "the failed unit's count is rolled back, the others' are kept",
      );
    });

    it("units submitted over the next rounds of I/O share the first one's transaction", async () => {
      const transactions: unknown[] = [];
      const unit = () => inGroupTransaction(ctx.db, async (tx) => void transactions.push(tx));
      const afterRounds = (rounds: number): Promise<void> =>
        new Promise((resolve) => setImmediate(() => (rounds <= 1 ? resolve() : void afterRounds(rounds - 1).then(resolve))));
      await Promise.all([unit(), afterRounds(1).then(unit), afterRounds(2).then(unit)]);
      assert.equal(transactions.length, 3);
      assert.equal(new Set(transactions).size, 1, "one transaction for the three");
    });

    it("outside a grouped transaction, deferred writes run at once", async () => {
      let ran = false;
      await ctx.db.transaction().execute(async (tx) => {
        await onceBeforeCommit(tx, "k", async () => {
          ran = true;
        });
        assert.equal(ran, true);
      });
    });
  });
}
