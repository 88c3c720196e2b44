// A delivery (or queued run) completes in the transaction that stores the run's results:
// if completing fails — the worker lost its lease, so another worker will run the job — the
// results are not stored either, and the workflow's events are never stored twice.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { workflowDeps } from "../../src/services.js";
import { handleWorkflowDelivery } from "../../src/domain/workflows/workflow-jobs.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const EMIT_STEP = "export default { async run({ steps, $ }) { $.send.emit({ raw_event: steps.trigger.event }); } }";

for (const dialect of DIALECTS) {
  describe(`workflow runs complete their delivery in the same transaction [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let workflowId: string;
    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount();
      const created = await account.api.post("/workflows", { name: "emitter", steps: [{ name: "emit", code: EMIT_STEP }] });
      assert.equal(created.status, 200, created.text);
      workflowId = created.body.data.id;
    });
    after(async () => app.close());

    const storedEvents = async () =>
      (await account.api.get(`/workflows/${workflowId}/event_summaries`)).body.page_info.total_count as number;

    it("stores nothing when completing the delivery fails, and completes it once when it succeeds", async () => {
      const deps = workflowDeps(app.sluice.services);
      const lostLease = async () => {
        throw new Error("lease lost");
      };
      await assert.rejects(
        handleWorkflowDelivery(deps, { userId: account.id, listenerId: workflowId, event: { n: 1 }, complete: lostLease }),
        /lease lost/,
      );
      assert.equal(await storedEvents(), 0, "the run's results rolled back with the failed completion");

      let completions = 0;
      await handleWorkflowDelivery(deps, {
        userId: account.id,
        listenerId: workflowId,
        event: { n: 2 },
        complete: async () => void completions++,
      });
      assert.equal(completions, 1);
      assert.equal(await storedEvents(), 1);
    });
  });
}
