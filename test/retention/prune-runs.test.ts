// Workflow runs keep the retention of deliveries, on both databases: a run that ended before
// the retention period goes with its steps and links; recent ended runs, and running or
// paused runs of any age, stay.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { DAY_MS, pruneExpired } from "../../src/domain/retention/prune-expired.js";
import { FakeClock } from "../../src/lib/clock.js";
import { newId, newTimeOrderedId } from "../../src/lib/ids.js";
import type { RunStatus } from "../../src/store/schema.js";
import type { Store } from "../../src/store/store.js";
import { DIALECTS } from "../helpers/dialects.js";
import { openTestStore, type TestStore } from "../helpers/test-store.js";
import { testContext } from "../helpers/test-context.js";

for (const dialect of DIALECTS) {
  describe(`retention of workflow runs [${dialect}]`, () => {
    let testStore: TestStore;
    let store: Store;
    const clock = new FakeClock(Date.UTC(2026, 5, 1));
    const config = loadConfig({ SLUICE_DELIVERY_RETENTION_DAYS: "30" });

    before(async () => {
      testStore = await openTestStore(dialect);
      store = testStore.store;
    });
    after(async () => testStore.close());

    async function run(ageDays: number, status: RunStatus): Promise<string> {
      const started = clock.now() - ageDays * DAY_MS;
      const id = newTimeOrderedId("run", started);
      const ended = status === "running" || status === "paused" ? null : started;
      await store.db
        .insertInto("workflow_runs")
        .values({
          id,
          user_id: "u_x",
          workflow_id: "p_x",
          origin: null,
          driver: null,
          driver_until: null,
          status,
          summary: null,
          trigger_event: "{}",
          trigger_kind: "http",
          context: "{}",
          hops: 0,
          steps: "[]",
          next_step: 0,
          wake_seq: 0,
          created_at: started,
          ended_at: ended,
          duration_ms: ended === null ? null : 0,
        })
        .execute();
      await store.db
        .insertInto("workflow_run_steps")
        .values({
          run_id: id,
          position: 0,
          step_id: "c_x",
          name: "one",
          status: status === "paused" ? "paused" : "succeeded",
          started_at: started,
          duration_ms: 1,
          exports: "{}",
          return_value: null,
          resume_data: null,
          logs: "[]",
          error: null,
          runs: 1,
          rerun_context: null,
          callback_request: null,
          flow: null,
        })
        .execute();
      await store.db
        .insertInto("workflow_run_links")
        .values({ hash: newId("run"), run_id: id, action: "resume", wake_seq: 0, expires_at: started + DAY_MS })
        .execute();
      return id;
    }

    it("deletes ended runs older than the retention period with their steps and links, and nothing else", async () => {
      const old = await Promise.all([run(31, "succeeded"), run(40, "failed"), run(35, "cancelled")]);
      const kept = await Promise.all([run(29, "succeeded"), run(90, "paused"), run(90, "running")]);
      const counts = await pruneExpired(testContext(store, { clock, config }), { pauseMs: 0, batchSize: 2 });
      assert.equal(counts.runs, 3);
      const runs = (await store.db.selectFrom("workflow_runs").select("id").execute()).map((row) => row.id).sort();
      assert.deepEqual(runs, [...kept].sort());
      const steps = (await store.db.selectFrom("workflow_run_steps").select("run_id").execute()).map((row) => row.run_id);
      const links = (await store.db.selectFrom("workflow_run_links").select("run_id").execute()).map((row) => row.run_id);
      for (const id of old) assert.ok(!steps.includes(id) && !links.includes(id), `${id} left rows behind`);
      assert.equal(steps.length, 3);
      assert.equal((await pruneExpired(testContext(store, { clock, config }), { pauseMs: 0 })).runs, 0);
    });
  });
}
