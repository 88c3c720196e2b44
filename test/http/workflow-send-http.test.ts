// $.send.http in workflow steps: the request goes out after the step's results are stored, with
// its method, headers and JSON data; a step that fails sends nothing; bad input fails the step.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "../delivery/receiver.js";

const sends = (url: string, then = "") => `export default {
  async run({ steps, $ }) {
    $.send.http({ method: "PUT", url: ${JSON.stringify(url)}, headers: { "X-From": "step" }, data: { n: steps.trigger.event.body.n } });
    ${then}
    return "sent";
  },
};`;

for (const dialect of DIALECTS) {
  describe(`$.send.http in workflow steps [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let receiver: Receiver;
    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, { allowPrivateEgress: true });
      account = await app.newAccount({ plan: "paid" });
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    async function runOf(steps: Array<{ name: string; code: string }>, n: number) {
      const created = await account.api.post("/workflows", { steps });
      assert.equal(created.status, 200, created.text);
      const wf = created.body.data;
      assert.equal((await request(wf.endpoint_url, "POST", "", { json: { n } })).status, 200);
      return waitFor(async () => {
        const run = (await account.api.get(`/workflows/${wf.id}/runs`)).body.data[0];
        return run && run.status !== "running" ? run : undefined;
      });
    }

    it("sends the request after the step, with its method, headers and JSON data", async () => {
      const run = await runOf([{ name: "notify", code: sends(`${receiver.url}/sent`) }], 7);
      assert.equal(run.status, "succeeded");
      const got = await waitFor(() => receiver.at("/sent")[0], { what: "the $.send.http request" });
      assert.equal(got.headers["x-from"], "step");
      assert.equal(got.headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(got.body), { n: 7 });
    });

    it("a step that fails sends nothing; bad input fails the step with a clear error", async () => {
      const failed = await runOf(
        [
          { name: "breaks", code: sends(`${receiver.url}/never`, 'throw new Error("after asking");') },
          { name: "bad", code: `export default { async run({ $ }) { $.send.http({ url: "ftp://example.test/x" }); } };` },
        ],
        1,
      );
      assert.equal(failed.status, "failed");
      const bad = await runOf(
        [{ name: "bad", code: `export default { async run({ $ }) { $.send.http({ url: "ftp://example.test/x" }); } };` }],
        2,
      );
      const detail = await account.api.get(`/workflows/${bad.workflow_id}/runs/${bad.id}`);
      assert.match(detail.body.data.steps[0].error.message, /\$\.send\.http's url must be an http or https URL/);
      // A later request shows the order: had the failed step's request gone out, it would be here first.
      await runOf([{ name: "notify", code: sends(`${receiver.url}/after`) }], 3);
      await waitFor(() => receiver.at("/after")[0], { what: "the later request" });
      assert.equal(receiver.at("/never").length, 0);
    });
  });
}
