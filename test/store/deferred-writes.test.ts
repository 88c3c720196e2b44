// Round trips of an emit. On PostgreSQL an emit's grouped transaction is four statements —
// begin; the events INSERT with the newest-id read and the subscriptions; one statement with
// the deliveries, their jobs, the usage counter, the stream trim and the NOTIFY; commit —
// and it writes exactly what the separate statements wrote (checked on both dialects).
// Deferred writes are combined with renumbered parameters and split under a parameter limit.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CompiledQuery, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { appendEvents, EVENTS_KEPT_PER_STREAM } from "../../src/domain/events/append-events.js";
import { recordUsage } from "../../src/domain/usage/record-usage.js";
import { utcDay } from "../../src/domain/users/billing-period.js";
import { newId } from "../../src/lib/ids.js";
import { JOBS_CHANNEL } from "../../src/queue/queue-dialect.js";
import { decodeWakeSignal, THIS_PROCESS, type WakeSignal } from "../../src/queue/wake.js";
import { combined, flushDeferredWrites, shiftParameters } from "../../src/store/deferred-writes.js";
import { inGroupTransaction } from "../../src/store/group-commit.js";
import type { Database } from "../../src/store/schema.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { newInProcessState } from "../../src/domain/in-process-state.js";

/** The in-process state appendEvents keeps up to date, as a context would hold it. */
const state = newInProcessState();
import { createEventLimits } from "../../src/domain/events/event-limits.js";
import { loadConfig } from "../../src/config.js";

describe("combined deferred writes", () => {
  it("puts each write in a CTE with its parameters after the earlier ones, and NOTIFYs in the main select", () => {
    const query = combined(
      [CompiledQuery.raw("insert into a values ($1, $2)", [1, 2]), CompiledQuery.raw("delete from b where x = $1", [3])],
      [{ channel: "c", payload: "p" }],
    );
    assert.equal(
      query.sql,
      "with w0 as (insert into a values ($1, $2)), w1 as (delete from b where x = $3) select pg_notify($4, $5) as n0",
    );
    assert.deepEqual(query.parameters, [1, 2, 3, "c", "p"]);
  });

  it("renumbers a text's parameters, and remembers the result for the next emit", () => {
    const text = "insert into a values ($1, $2), ($3, $10)";
    assert.equal(shiftParameters(text, 0), text);
    const shifted = shiftParameters(text, 5);
    assert.equal(shifted, "insert into a values ($6, $7), ($8, $15)");
    assert.equal(shiftParameters(text, 5), shifted);
    assert.equal(shiftParameters(text, 1), "insert into a values ($2, $3), ($4, $11)");
  });

  it("sends a lone write as it is", () => {
    const write = CompiledQuery.raw("delete from b where x = $1", [3]);
    assert.equal(combined([write], []), write);
  });
});

for (const dialect of DIALECTS) {
  describe(`an emit's statements [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    /** The store's database, logging every statement's SQL (PostgreSQL; SQLite: the store's own). */
    let db: Kysely<Database>;
    const statements: string[] = [];
    const userId = newId("u");
    const webhookId = newId("wh");
    const emitterId = newId("dc");

    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
      db = store.pool
        ? new Kysely<Database>({
            dialect: new PostgresDialect({ pool: store.pool }),
            log: (event) => void statements.push(event.query.sql),
          })
        : store.db;
      const now = Date.now();
      await store.db
        .insertInto("users")
        .values({ id: userId, username: `rt-${userId}`, email: `${userId}@test.invalid`, plan: "free", created_at: now, updated_at: now })
        .execute();
      await store.db
        .insertInto("webhooks")
        .values({
          id: webhookId,
          user_id: userId,
          name: null,
          description: null,
          url: "http://127.0.0.1:9/hook",
          active: 1,
          signing_secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          previous_secret: null,
          previous_secret_expires_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await store.db
        .insertInto("subscriptions")
        .values({ id: newId("sub"), user_id: userId, emitter_id: emitterId, listener_id: webhookId, event_name: "", created_at: now })
        .execute();
    });
    after(async () => {
      await testStore.close();
    });

    it("stores the event, its delivery and job, the usage and the trim; on PostgreSQL in four statements, the NOTIFY arriving with the commit", async () => {
      for (let i = 0; i < EVENTS_KEPT_PER_STREAM; i++) {
        await store.db
          .insertInto("events")
          .values({
            emitter_id: emitterId,
            ms: 1000 + i,
            seq: 0,
            id: `${1000 + i}-0`,
            user_id: userId,
            stream: "",
            event: "null",
            metadata: "{}",
          })
          .execute();
      }
      const notified: WakeSignal[] = [];
      let listener: pg.Client | undefined;
      if (testStore.database.databaseUrl) {
        listener = new pg.Client({ connectionString: testStore.database.databaseUrl });
        await listener.connect();
        listener.on("notification", (message) => notified.push(decodeWakeSignal(message.payload)!));
        await listener.query(`LISTEN ${JOBS_CHANNEL}`);
      }
      try {
        statements.length = 0;
        const nowMs = Date.now();
        const stored = await inGroupTransaction(db, async (tx) => {
          await recordUsage(tx, userId, nowMs, 12);
          return appendEvents(state, tx, {
            userId,
            emitterId,
            nowMs,
            events: [{ stream: "", event: { hello: "world" } }],
            limits: createEventLimits(loadConfig({}), store.db),
          });
        });

        if (dialect === "postgres") {
          assert.equal(statements.length, 4, statements.join("\n"));
          assert.match(statements[0]!, /^begin$/);
          assert.match(statements[1]!, /insert into events[\s\S]*listening as/);
          assert.match(
            statements[2]!,
            /^with w0 as \(insert into "deliveries"[\s\S]*insert into "jobs"[\s\S]*insert into "usage_daily"[\s\S]*delete from "events"[\s\S]*pg_notify/,
          );
          assert.match(statements[3]!, /^commit$/);
          for (let i = 0; i < 50 && notified.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
          // It names this process, whose workers were woken in-process at the commit.
          assert.deepEqual(notified, [{ types: ["delivery"], dueNow: true, keys: [webhookId], origin: THIS_PROCESS }]);
        }

        const events = await store.db
          .selectFrom("events")
          .select("id")
          .where("emitter_id", "=", emitterId)
          .orderBy("ms")
          .orderBy("seq")
          .execute();
        assert.equal(events.length, EVENTS_KEPT_PER_STREAM, "the stream is trimmed to its newest events");
        assert.equal(events[0]!.id, "1001-0");
        assert.equal(events[events.length - 1]!.id, stored[0]!.id);
        const deliveries = await store.db.selectFrom("deliveries").selectAll().where("emitter_id", "=", emitterId).execute();
        assert.equal(deliveries.length, 1);
        assert.equal(deliveries[0]!.event_id, stored[0]!.id);
        assert.equal(deliveries[0]!.listener_id, webhookId);
        assert.deepEqual(JSON.parse(deliveries[0]!.event), { hello: "world" });
        const jobs = await store.db.selectFrom("jobs").select(["payload", "concurrency_key"]).where("type", "=", "delivery").execute();
        assert.deepEqual(
          jobs.map((job) => [JSON.parse(job.payload), job.concurrency_key]),
          [[{ deliveryId: deliveries[0]!.id }, webhookId]],
        );
        const usage = await store.db
          .selectFrom("usage_daily")
          .select(["invocations", "compute_ms"])
          .where("user_id", "=", userId)
          .where("day", "=", utcDay(nowMs))
          .executeTakeFirstOrThrow();
        assert.deepEqual([Number(usage.invocations), Number(usage.compute_ms)], [1, 12]);
      } finally {
        await listener?.end();
      }
    });

    if (dialect === "postgres") {
      it("splits deferred writes into statements under the parameter limit, and runs every one", async () => {
        const ids = [newId("u"), newId("u"), newId("u")];
        const now = Date.now();
        const writes = ids.map((id) =>
          db
            .insertInto("users")
            .values({ id, username: `split-${id}`, email: `${id}@test.invalid`, plan: "free", created_at: now, updated_at: now })
            .compile(),
        );
        statements.length = 0;
        await db
          .transaction()
          .execute((tx) => flushDeferredWrites(tx, { writes, notifications: [{ channel: "sluice_test_split", payload: "x" }] }, 13));
        // Six parameters per write: two writes fit under 13, the third and the NOTIFY follow.
        assert.equal(statements.length, 4, statements.join("\n"));
        const made = await store.db.selectFrom("users").select("id").where("id", "in", ids).execute();
        assert.equal(made.length, 3);
      });
    }
  });
}
