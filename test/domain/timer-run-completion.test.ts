// A timer job completes in the transaction that stores the tick's events: if completing
// fails — the worker lost its lease, so another worker will run the job — the events are not
// stored either, and a tick never fires twice across workers (a worker killed between
// storing the events and removing its job used to leave the job to run again).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runTimer } from "../../src/domain/sources/source-jobs.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const TIMER_SOURCE = `export default {
  name: "completion timer", version: "0.0.1",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } },
  async run(event) { this.$emit({ timestamp: event.timestamp }); },
};`;

for (const dialect of DIALECTS) {
  describe(`timer runs complete their job in the same transaction [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let sourceId: string;
    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount();
      const created = await account.api.post("/sources", { component_code: TIMER_SOURCE });
      assert.equal(created.status, 200, created.text);
      sourceId = created.body.data.id;
    });
    after(async () => app.close());

    const storedEvents = async () => (await account.api.get(`/sources/${sourceId}/event_summaries`)).body.page_info.total_count as number;

    it("stores nothing when completing the job fails, and completes it once when it succeeds", async () => {
      const deps = { ctx: app.sluice.services.ctx, runner: app.sluice.services.runner };
      const lostLease = async () => {
        throw new Error("lease lost");
      };
      await assert.rejects(runTimer(deps, { sourceId, timestamp: 1_700_000_000 }, lostLease), /lease lost/);
      assert.equal(await storedEvents(), 0, "the tick's event rolled back with the failed completion");

      let completions = 0;
      await runTimer(deps, { sourceId, timestamp: 1_700_000_060 }, async () => void completions++);
      assert.equal(completions, 1);
      assert.equal(await storedEvents(), 1);
    });
  });
}
