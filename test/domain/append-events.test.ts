// Event ids on both dialects: an emitter's new events go above its newest stored id, even when
// that id is ahead of this process (another process, or a clock that went back), inside a
// grouped transaction and outside one; the events of one store get consecutive ids; and ids
// this process makes afterwards, for any emitter, stay above the ones it was given.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { appendEvents } from "../../src/domain/events/append-events.js";
import { parseEventId } from "../../src/domain/events/event-ids.js";
import { newId } from "../../src/lib/ids.js";
import { inGroupTransaction } from "../../src/store/group-commit.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { newInProcessState } from "../../src/domain/in-process-state.js";

/** The in-process state appendEvents keeps up to date, as a context would hold it. */
const state = newInProcessState();
import { createEventLimits } from "../../src/domain/events/event-limits.js";
import { loadConfig } from "../../src/config.js";

const after_ = (a: string, b: string) => {
  const [x, y] = [parseEventId(a)!, parseEventId(b)!];
  return x.ms > y.ms || (x.ms === y.ms && x.seq > y.seq);
};

for (const dialect of DIALECTS) {
  describe(`event ids above the emitter's newest [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    const userId = newId("u");

    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
      const now = Date.now();
      await store.db
        .insertInto("users")
        .values({ id: userId, username: `ids-${userId}`, email: `${userId}@test.invalid`, plan: "paid", created_at: now, updated_at: now })
        .execute();
    });
    after(async () => {
      await testStore.close();
    });

    /** The millisecond of this process's latest id (ids of other tests may be ahead of the clock). */
    async function latestMs(): Promise<number> {
      const probe = await store.db.transaction().execute((tx) =>
        appendEvents(state, tx, {
          userId,
          emitterId: newId("dc"),
          nowMs: Date.now(),
          events: [{ stream: "", event: null }],
          limits: createEventLimits(loadConfig({}), store.db),
        }),
      );
      return parseEventId(probe[0]!.id)!.ms;
    }

    /** An event of `emitterId` with this key, as another process would have stored it. */
    async function storedElsewhere(emitterId: string, ms: number, seq: number): Promise<void> {
      await store.db
        .insertInto("events")
        .values({ emitter_id: emitterId, ms, seq, id: `${ms}-${seq}`, user_id: userId, stream: "", event: "null", metadata: "{}" })
        .execute();
    }

    for (const grouped of [false, true]) {
      it(`${grouped ? "in a grouped transaction" : "in a plain transaction"}: new ids follow a newer stored id, consecutively, and later ids of this process stay above them`, async () => {
        const emitterId = newId("dc");
        const nowMs = await latestMs();
        const aheadMs = nowMs + 60_000;
        await storedElsewhere(emitterId, aheadMs, 7);
        const events = [
          { stream: "", event: { n: 1 } },
          { stream: "$logs", event: { n: 2 } },
          { stream: "", event: { n: 3 } },
        ];
        const store_ = (tx: Parameters<Parameters<typeof inGroupTransaction>[1]>[0]) =>
          appendEvents(state, tx, { userId, emitterId, nowMs, events, limits: createEventLimits(loadConfig({}), store.db) });
        const stored = grouped ? await inGroupTransaction(store.db, store_) : await store.db.transaction().execute(store_);
        assert.deepEqual(
          stored.map((e) => e.id),
          [`${aheadMs}-8`, `${aheadMs}-9`, `${aheadMs}-10`],
        );
        const rows = await store.db
          .selectFrom("events")
          .select(["id", "ms", "seq", "stream", "event"])
          .where("emitter_id", "=", emitterId)
          .orderBy("ms")
          .orderBy("seq")
          .execute();
        assert.deepEqual(
          rows.map((r) => [r.id, Number(r.ms), Number(r.seq), r.stream, JSON.parse(r.event)]),
          [
            [`${aheadMs}-7`, aheadMs, 7, "", null],
            [`${aheadMs}-8`, aheadMs, 8, "", { n: 1 }],
            [`${aheadMs}-9`, aheadMs, 9, "$logs", { n: 2 }],
            [`${aheadMs}-10`, aheadMs, 10, "", { n: 3 }],
          ],
        );
        assert.equal(stored[1]!.indexedAtMs, aheadMs);

        // Another emitter, stored by this process afterwards at the same clock reading.
        const other = await store.db.transaction().execute((tx) =>
          appendEvents(state, tx, {
            userId,
            emitterId: newId("dc"),
            nowMs,
            events: [{ stream: "", event: null }],
            limits: createEventLimits(loadConfig({}), store.db),
          }),
        );
        assert.ok(after_(other[0]!.id, stored[2]!.id), `${other[0]!.id} comes after ${stored[2]!.id}`);
      });
    }

    it("without a newer stored id, an emitter's ids follow the clock", async () => {
      const emitterId = newId("dc");
      const nowMs = (await latestMs()) + 1;
      const stored = await inGroupTransaction(store.db, (tx) =>
        appendEvents(state, tx, {
          userId,
          emitterId,
          nowMs,
          events: [
            { stream: "", event: 1 },
            { stream: "", event: 2 },
          ],
          limits: createEventLimits(loadConfig({}), store.db),
        }),
      );
      assert.deepEqual(
        stored.map((e) => e.id),
        [`${nowMs}-0`, `${nowMs}-1`],
      );
    });
  });
}
