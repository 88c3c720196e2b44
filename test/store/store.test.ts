// Storage on both dialects: migrations applied once and idempotent across restarts, one
// schema whose values read back with the same JS types, and the subscription verbs that
// other issues call directly (auto-subscriptions applied to new emitters).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Ctx } from "../../src/domain/context.js";
import { applyAutoSubscriptions, createAutoSubscription } from "../../src/domain/subscriptions/auto-subscriptions.js";
import { createSubscription } from "../../src/domain/subscriptions/create-subscription.js";
import { listSubscriptions } from "../../src/domain/subscriptions/list-subscriptions.js";
import { createUser } from "../../src/domain/users/create-user.js";
import { createWebhook } from "../../src/domain/webhooks/create-webhook.js";
import { FakeClock } from "../../src/lib/clock.js";
import { migrations } from "../../src/store/migrations/index.js";
import { decodeCursor, encodeCursor } from "../../src/store/paginate.js";
import { openStore, type Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { testContext } from "../helpers/test-context.js";

describe("cursors", () => {
  it("round-trip the keys pagination makes", () => {
    assert.deepEqual(decodeCursor(encodeCursor([1767225600000, "wh_abc_DEF-1"])), [1767225600000, "wh_abc_DEF-1"]);
  });
  it("refuse anything else as a validation error", () => {
    const bad = [
      "",
      "!!",
      encodeCursor([1, 2]),
      encodeCursor(["1", "x"]),
      encodeCursor([1.5, "x"]),
      encodeCursor([2 ** 60, "x"]),
      encodeCursor([1, "a b"]),
      encodeCursor([1, "x", 3]),
      Buffer.from("{}").toString("base64url"),
    ];
    for (const cursor of bad) {
      assert.throws(
        () => decodeCursor(cursor),
        (error: any) => error.code === "VALIDATION",
        cursor,
      );
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`store [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    let ctx: Ctx;
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 123));
    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
      // No hooks on new accounts: these tests count what createUser itself writes.
      ctx = testContext(store, { clock, userCreatedHooks: [] });
    });
    after(async () => {
      await testStore.close();
    });

    it("opens on the configured dialect", () => {
      assert.equal(store.dialect, dialect);
    });

    it("applies every migration once, and re-opening the same database changes nothing", async () => {
      const names = async (s: Store) =>
        (
          await s.db
            .selectFrom("kysely_migration" as any)
            .select("name" as any)
            .orderBy("name" as any)
            .execute()
        ).map((r: any) => r.name as string);
      const expected = Object.keys(migrations).sort();
      assert.deepEqual(await names(store), expected);
      for (let i = 0; i < 2; i++) {
        const again = await openStore({ databaseUrl: testStore.database.databaseUrl, dataDir: testStore.database.dataDir });
        try {
          assert.deepEqual(await names(again), expected);
        } finally {
          await again.close();
        }
      }
    });

    it("reads millisecond timestamps and 0/1 booleans back as JS numbers on both dialects", async () => {
      const user = await createUser({ ctx, input: { username: "typed", email: "t@example.test" } });
      const hook = await createWebhook({ ctx, actor: { userId: user.id }, input: { url: "https://example.test/t" } });
      const row = await ctx.db.selectFrom("webhooks").selectAll().where("id", "=", hook.id).executeTakeFirstOrThrow();
      assert.equal(typeof row.created_at, "number");
      assert.equal(row.created_at, clock.now(), "milliseconds are kept exactly");
      assert.equal(row.active, 1);
      assert.equal(hook.created_at, Math.floor(clock.now() / 1000), "the API shows Unix seconds");
      const users = await ctx.db.selectFrom("users").select(["created_at"]).where("id", "=", user.id).executeTakeFirstOrThrow();
      assert.equal(typeof users.created_at, "number");
    });

    it("a username is unique, also when creates race", async () => {
      await createUser({ ctx, input: { username: "unique1", email: "u@example.test" } });
      await assert.rejects(
        createUser({ ctx, input: { username: "unique1", email: "u@example.test" } }),
        (error: any) => error.code === "CONFLICT",
      );
      const raced = await Promise.allSettled(
        Array.from({ length: 6 }, () => createUser({ ctx, input: { username: "racer", email: "r@example.test" } })),
      );
      assert.equal(raced.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of raced) if (r.status === "rejected") assert.equal(r.reason.code, "CONFLICT", String(r.reason));
    });

    describe("subscriptions", () => {
      let userId: string;
      let hookId: string;
      before(async () => {
        userId = (await createUser({ ctx, input: { username: "subs", email: "s@example.test" } })).id;
        hookId = (await createWebhook({ ctx, actor: { userId }, input: { url: "https://example.test/s" } })).id;
      });

      it("concurrent identical creates make one subscription", async () => {
        const results = await Promise.all(
          Array.from({ length: 8 }, () =>
            createSubscription({ ctx, actor: { userId }, input: { emitter_id: "p_*", listener_id: hookId, event_name: "$errors" } }),
          ),
        );
        assert.equal(new Set(results.map((r) => r.id)).size, 1);
        const rows = (await listSubscriptions({ ctx, actor: { userId } })).filter(
          (s) => s.emitter_id === "p_*" && s.event_name === "$errors",
        );
        assert.equal(rows.length, 1);
      });

      it("an auto-subscription subscribes the listener to emitters created later, once per stream", async () => {
        await createAutoSubscription({ ctx, actor: { userId }, input: { listener_id: hookId, event_name: "default" } });
        await createAutoSubscription({ ctx, actor: { userId }, input: { listener_id: hookId, event_name: "$errors" } });
        const before = await listSubscriptions({ ctx, actor: { userId } });
        assert.ok(!before.some((s) => s.emitter_id === "dc_later"));

        // What the sources and workflows issues call, in their create transaction.
        await ctx.db.transaction().execute(async (trx) => applyAutoSubscriptions({ ...ctx, db: trx }, userId, "dc_later"));
        await applyAutoSubscriptions(ctx, userId, "dc_later");
        const made = (await listSubscriptions({ ctx, actor: { userId } })).filter((s) => s.emitter_id === "dc_later");
        assert.deepEqual(made.map((s) => s.event_name).sort(), ["$errors", "default"]);
        assert.ok(made.every((s) => s.listener_id === hookId));

        // Another account's auto-subscriptions never reach this account's emitters.
        const other = (await createUser({ ctx, input: { username: "other-subs", email: "o@example.test" } })).id;
        await applyAutoSubscriptions(ctx, other, "dc_theirs");
        assert.deepEqual((await listSubscriptions({ ctx, actor: { userId: other } })).length, 0);
      });

      it("a listener is never auto-subscribed to itself", async () => {
        await applyAutoSubscriptions(ctx, userId, hookId);
        assert.ok(!(await listSubscriptions({ ctx, actor: { userId } })).some((s) => s.emitter_id === hookId));
      });
    });
  });
}
