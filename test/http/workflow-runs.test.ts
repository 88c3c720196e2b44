// Workflow runs through the HTTP API, on each database: each run and each of its steps is
// recorded as it goes (GET /workflows/{id}/runs[/{run_id}]), and $.flow pauses, resumes,
// cancels, reruns and exits runs as Pipedream documents it, through single-use /r/ links.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { handleWorkflowRunJob } from "../../src/domain/workflows/workflow-jobs.js";
import { workflowDeps } from "../../src/services.js";

const FIRST = `export default defineComponent({
  async run({ steps, $ }) {
    console.log("first saw", steps.trigger.event.body.n);
    $.export("doubled", steps.trigger.event.body.n * 2);
    return { n: steps.trigger.event.body.n };
  },
});`;
const SECOND = `export default {
  async run({ steps, $ }) {
    $.export("$summary", "added " + steps.first.doubled);
    return steps.first.$return_value.n + steps.first.doubled;
  },
};`;
const THROWS = `export default { async run() { throw new TypeError("no good"); } };`;
const NEVER = `export default { async run() { return "should not run"; } };`;
const EXITS = `export default { async run({ $ }) { $.export("before", 1); $.flow.exit("enough"); } };`;
/** Suspends (or delays) and exports its links, so the test can follow them. */
const suspend = (call: string) =>
  `export default { async run({ $ }) { const links = ${call}; $.export("links", links); return "paused"; } };`;
const AFTER_PAUSE = `export default { async run({ steps }) { return { resumed: steps.wait.$resume_data ?? null, waited: steps.wait.$return_value }; } };`;
const RERUNS = `export default {
  async run({ $ }) {
    const { runs, context } = $.context.run;
    $.flow.rerun(50, { seen: runs }, 2);
    return { runs, context };
  },
};`;
const CALLBACK = `export default {
  async run({ $ }) {
    const { runs, callback_request } = $.context.run;
    if (runs === 1) { $.export("links", $.flow.rerun(60000, null, 1)); return "waiting"; }
    return callback_request.body;
  },
};`;

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

for (const dialect of DIALECTS) {
  describe(`workflow runs [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect, { runTimeoutSeconds: 5 });
      account = await app.newAccount({ plan: "paid" });
    });
    after(async () => app.close());

    async function workflow(steps: Array<{ name: string; code: string }>) {
      const created = await account.api.post("/workflows", { steps });
      assert.equal(created.status, 200, created.text);
      return created.body.data as { id: string; endpoint_url: string };
    }
    async function trigger(wf: { endpoint_url: string }, body: unknown = { n: 1 }) {
      const res = await request(wf.endpoint_url, "POST", "", { json: body });
      assert.equal(res.status, 200, res.text);
    }
    async function onlyRun(wfId: string, status?: string) {
      const value = await waitFor(
        async () => {
          const list = await account.api.get(`/workflows/${wfId}/runs`);
          const run = list.body.data?.[0];
          return run && (status ? run.status === status : TERMINAL.has(run.status)) ? run : undefined;
        },
        { what: `a run of ${wfId} ${status ?? "ended"}`, timeoutMs: 20_000 },
      );
      const detail = await account.api.get(`/workflows/${wfId}/runs/${value.id}`);
      assert.equal(detail.status, 200, detail.text);
      return detail.body.data;
    }

    it("records a run and each step: status, summary, exports, return value, logs, times", async () => {
      const wf = await workflow([
        { name: "first", code: FIRST },
        { name: "second", code: SECOND },
      ]);
      await trigger(wf, { n: 4 });
      const run = await onlyRun(wf.id);
      assert.match(run.id, /^run_/);
      assert.equal(run.status, "succeeded");
      assert.equal(run.summary, "added 8");
      assert.equal(run.trigger_event.body.n, 4);
      assert.ok(run.ended_at >= run.started_at && run.duration_ms >= 0, JSON.stringify(run));
      assert.deepEqual(
        run.steps.map((s: any) => [s.name, s.status, s.return_value]),
        [
          ["first", "succeeded", { n: 4 }],
          ["second", "succeeded", 12],
        ],
      );
      assert.deepEqual(run.steps[0].exports, { doubled: 8 });
      assert.deepEqual(run.steps[0].logs, [{ level: "log", message: "first saw 4" }]);
      assert.ok(run.steps.every((s: any) => s.started_at >= run.started_at && s.duration_ms >= 0));
      assert.equal(run.steps[1].error, null);
    });

    it("lists runs newest first with cursors, and hides them from other accounts", async () => {
      const wf = await workflow([{ name: "first", code: FIRST }]);
      for (const n of [1, 2, 3]) {
        await trigger(wf, { n });
        await waitFor(async () => (await account.api.get(`/workflows/${wf.id}/runs`)).body.page_info.total_count === n && true);
      }
      await waitFor(async () => (await account.api.get(`/workflows/${wf.id}/runs`)).body.data.every((r: any) => r.status === "succeeded"));
      const page = await account.api.get(`/workflows/${wf.id}/runs`, { limit: 2 });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.page_info.total_count, 3);
      assert.deepEqual(
        page.body.data.map((r: any) => r.trigger_event.body.n),
        [3, 2],
      );
      const rest = await account.api.get(`/workflows/${wf.id}/runs`, { limit: 2, after: page.body.page_info.end_cursor });
      assert.deepEqual(
        rest.body.data.map((r: any) => r.trigger_event.body.n),
        [1],
      );
      const other = await app.newAccount();
      assert.equal((await other.api.get(`/workflows/${wf.id}/runs`)).status, 404);
      assert.equal((await other.api.get(`/workflows/${wf.id}/runs/${page.body.data[0].id}`)).status, 404);
      assert.equal((await account.api.get(`/workflows/${wf.id}/runs/run_unknown`)).status, 404);
      assert.equal((await account.api.get(`/workflows/${wf.id}/runs`, { limit: 0 })).status, 400);
    });

    it("a failing step fails the run, names its error and skips the steps after it; $.flow.exit ends it succeeded", async () => {
      const failing = await workflow([
        { name: "first", code: FIRST },
        { name: "bad", code: THROWS },
        { name: "later", code: NEVER },
      ]);
      await trigger(failing);
      const failed = await onlyRun(failing.id);
      assert.equal(failed.status, "failed");
      assert.deepEqual(
        failed.steps.map((s: any) => s.status),
        ["succeeded", "failed", "skipped"],
      );
      assert.equal(failed.steps[1].error.name, "TypeError");
      assert.equal(failed.steps[1].error.message, "no good");

      const exiting = await workflow([
        { name: "stop", code: EXITS },
        { name: "later", code: NEVER },
      ]);
      await trigger(exiting);
      const exited = await onlyRun(exiting.id);
      assert.equal(exited.status, "succeeded");
      assert.deepEqual(
        exited.steps.map((s: any) => s.status),
        ["succeeded", "skipped"],
      );
      assert.deepEqual(exited.steps[0].exports, { before: 1 });
    });

    it("$.flow.suspend pauses until resume_url is requested; its body is $resume_data; the links are single-use", async () => {
      const wf = await workflow([
        { name: "wait", code: suspend("$.flow.suspend()") },
        { name: "after", code: AFTER_PAUSE },
      ]);
      await trigger(wf);
      const paused = await onlyRun(wf.id, "paused");
      assert.deepEqual(
        paused.steps.map((s: any) => s.status),
        ["paused", "pending"],
      );
      const { resume_url, cancel_url } = paused.steps[0].exports.links;
      assert.ok(resume_url.startsWith(`${app.origin}/r/`) && cancel_url.startsWith(`${app.origin}/r/`), resume_url);
      assert.notEqual(resume_url, cancel_url);
      // Only hashes are stored: neither token appears in the database.
      const stored = await app.sluice.services.ctx.db.selectFrom("workflow_run_links").select("hash").execute();
      for (const url of [resume_url, cancel_url]) assert.ok(!stored.some((row) => row.hash.includes(url.split("/r/")[1])));
      assert.equal((await request(`${app.origin}/r/not-a-token`, "POST", "")).status, 404);

      const resumed = await request(resume_url, "POST", "", { json: { approved: true } });
      assert.equal(resumed.status, 200, resumed.text);
      const done = await onlyRun(wf.id);
      assert.equal(done.status, "succeeded");
      assert.deepEqual(done.steps[1].return_value, { resumed: { approved: true }, waited: "paused" });
      assert.deepEqual(done.steps[0].exports.$resume_data, { approved: true });
      assert.equal((await request(resume_url, "POST", "", { json: {} })).status, 404);
      assert.equal((await request(cancel_url, "GET", "")).status, 404);
    });

    it("cancel_url cancels a paused run; a suspend that times out is cancelled", async () => {
      const wf = await workflow([
        { name: "wait", code: suspend("$.flow.suspend()") },
        { name: "after", code: AFTER_PAUSE },
      ]);
      await trigger(wf);
      const paused = await onlyRun(wf.id, "paused");
      const { resume_url, cancel_url } = paused.steps[0].exports.links;
      assert.equal((await request(cancel_url, "GET", "")).status, 200);
      const cancelled = await onlyRun(wf.id);
      assert.equal(cancelled.status, "cancelled");
      assert.deepEqual(
        cancelled.steps.map((s: any) => s.status),
        ["succeeded", "skipped"],
      );
      assert.equal((await request(resume_url, "POST", "")).status, 404);

      const timing = await workflow([
        { name: "wait", code: suspend("$.flow.suspend(200)") },
        { name: "after", code: AFTER_PAUSE },
      ]);
      await trigger(timing);
      const timedOut = await onlyRun(timing.id);
      assert.equal(timedOut.status, "cancelled");
      assert.equal(timedOut.steps[1].status, "skipped");
      assert.equal((await request(timedOut.steps[0].exports.links.resume_url, "POST", "")).status, 404);
    });

    it("the owner resumes or cancels a paused run through the API, as its links would; a run not paused is a 409", async () => {
      const wf = await workflow([
        { name: "wait", code: suspend("$.flow.suspend()") },
        { name: "after", code: AFTER_PAUSE },
      ]);
      await trigger(wf);
      const paused = await onlyRun(wf.id, "paused");
      const stranger = await app.newAccount();
      const theirs = await stranger.api.post(`/workflows/${wf.id}/runs/${paused.id}/resume`, { data: 1 });
      assert.equal(theirs.status, 404, theirs.text);
      const resumed = await account.api.post(`/workflows/${wf.id}/runs/${paused.id}/resume`, { data: { approved: "by API" } });
      assert.equal(resumed.status, 200, resumed.text);
      assert.deepEqual(resumed.body.data, { status: "resumed" });
      const done = await onlyRun(wf.id);
      assert.equal(done.status, "succeeded");
      assert.deepEqual(done.steps[1].return_value, { resumed: { approved: "by API" }, waited: "paused" });
      assert.equal((await request(paused.steps[0].exports.links.resume_url, "POST", "")).status, 404, "the links are used up");
      const again = await account.api.post(`/workflows/${wf.id}/runs/${paused.id}/cancel`);
      assert.equal(again.status, 409, again.text);
      assert.match(again.body.error, /is not paused \(it is succeeded\)/);

      await trigger(wf);
      const second = await waitFor(async () => {
        const list = await account.api.get(`/workflows/${wf.id}/runs`);
        return list.body.data.find((run: any) => run.id !== paused.id && run.status === "paused");
      });
      const cancelled = await account.api.post(`/workflows/${wf.id}/runs/${second.id}/cancel`);
      assert.equal(cancelled.status, 200, cancelled.text);
      const detail = await account.api.get(`/workflows/${wf.id}/runs/${second.id}`);
      assert.equal(detail.body.data.status, "cancelled");
      assert.equal((await request(detail.body.data.steps[0].exports.links.cancel_url, "GET", "")).status, 404);
    });

    it("$.flow.delay continues with the next step after the delay, or at once when resumed", async () => {
      const wf = await workflow([
        { name: "wait", code: suspend("$.flow.delay(300)") },
        { name: "after", code: AFTER_PAUSE },
      ]);
      await trigger(wf);
      const run = await onlyRun(wf.id);
      assert.equal(run.status, "succeeded");
      assert.deepEqual(run.steps[1].return_value, { resumed: null, waited: "paused" });
      assert.ok(run.steps[1].started_at - run.steps[0].started_at >= 300, JSON.stringify(run.steps));

      const long = await workflow([
        { name: "wait", code: suspend("$.flow.delay(600000)") },
        { name: "after", code: AFTER_PAUSE },
      ]);
      await trigger(long);
      const paused = await onlyRun(long.id, "paused");
      assert.equal((await request(paused.steps[0].exports.links.resume_url, "POST", "", { raw: "now please" })).status, 200);
      const resumed = await onlyRun(long.id);
      assert.equal(resumed.status, "succeeded");
      assert.deepEqual(resumed.steps[1].return_value, { resumed: "now please", waited: "paused" });
    });

    it("$.flow.rerun runs the step again with its run count and context, up to maxReruns, then goes on", async () => {
      const wf = await workflow([
        { name: "poll", code: RERUNS },
        { name: "after", code: `export default { async run({ steps }) { return steps.poll.$return_value; } };` },
      ]);
      await trigger(wf);
      const run = await onlyRun(wf.id);
      assert.equal(run.status, "succeeded");
      assert.deepEqual(run.steps[1].return_value, { runs: 3, context: { seen: 2 } });

      const callback = await workflow([
        { name: "poll", code: CALLBACK },
        { name: "after", code: `export default { async run({ steps }) { return steps.poll.$return_value; } };` },
      ]);
      await trigger(callback);
      const paused = await onlyRun(callback.id, "paused");
      assert.equal((await request(paused.steps[0].exports.links.resume_url, "POST", "", { json: { job: "done" } })).status, 200);
      const done = await onlyRun(callback.id);
      assert.equal(done.status, "succeeded");
      assert.deepEqual(done.steps[1].return_value, { job: "done" });
    });

    it("a workflow that calls $.respond answers with it, and its run is recorded; a worker takes over such a run whose process died", async () => {
      const wf = await workflow([
        {
          name: "answer",
          code: `export default { async run({ $ }) { await $.respond({ status: 201, body: { early: true } }); return 1; } };`,
        },
        { name: "after", code: `export default { async run({ steps }) { return steps.answer.$return_value + 1; } };` },
      ]);
      const res = await request(wf.endpoint_url, "POST", "", { json: {} });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body, { early: true });
      const run = await onlyRun(wf.id);
      assert.equal(run.status, "succeeded");
      assert.equal(run.steps[1].return_value, 2);

      // A run left mid-way by a process that drove it inside a request (its first step stored,
      // its driver's time up): the watch job queued with it lets a worker go on at step 2.
      const db = app.sluice.services.ctx.db;
      const row = await db.selectFrom("workflow_runs").selectAll().where("id", "=", run.id).executeTakeFirstOrThrow();
      const orphanId = `run_orphan${dialect}`;
      await db
        .insertInto("workflow_runs")
        .values({
          ...row,
          id: orphanId,
          status: "running",
          driver: "inline:gone",
          driver_until: Date.now() - 1,
          next_step: 1,
          ended_at: null,
          duration_ms: null,
          created_at: Date.now(),
        })
        .execute();
      const firstStep = await db
        .selectFrom("workflow_run_steps")
        .selectAll()
        .where("run_id", "=", run.id)
        .where("position", "=", 0)
        .executeTakeFirstOrThrow();
      await db
        .insertInto("workflow_run_steps")
        .values({ ...firstStep, run_id: orphanId, return_value: "41" })
        .execute();
      await app.sluice.services.queue.enqueue(db, [
        { type: "workflow.wake", userId: account.id, payload: { userId: account.id, runId: orphanId, seq: 0, reason: "watch" } },
      ]);
      const adopted = await waitFor(async () => {
        const detail = (await account.api.get(`/workflows/${wf.id}/runs/${orphanId}`)).body.data;
        return detail?.status === "succeeded" ? detail : undefined;
      });
      assert.equal(adopted.steps[1].return_value, 42);
    });

    it("a run whose job comes back after its workflow was deactivated ends cancelled", async () => {
      const wf = await workflow([{ name: "first", code: FIRST }]);
      await trigger(wf, { n: 1 });
      const done = await onlyRun(wf.id);
      const db = app.sluice.services.ctx.db;
      const row = await db.selectFrom("workflow_runs").selectAll().where("id", "=", done.id).executeTakeFirstOrThrow();
      const id = `run_stranded${dialect}`;
      await db
        .insertInto("workflow_runs")
        .values({
          ...row,
          id,
          origin: `j:stranded${dialect}`,
          driver: `j:stranded${dialect}`,
          status: "running",
          next_step: 0,
          ended_at: null,
          duration_ms: null,
        })
        .execute();
      assert.equal((await account.api.put(`/workflows/${wf.id}`, { active: false })).status, 200);
      const job = { userId: account.id, workflowId: wf.id, event: {}, trigger: "http" as const, hops: 0 };
      await handleWorkflowRunJob(workflowDeps(app.sluice.services), job, { origin: `j:stranded${dialect}` });
      const stranded = (await account.api.get(`/workflows/${wf.id}/runs/${id}`)).body.data;
      assert.equal(stranded.status, "cancelled");
      assert.deepEqual(
        stranded.steps.map((s: any) => s.status),
        ["skipped"],
      );
    });

    it("a paused run holds no runner request: many runs pause at once and all resume", async () => {
      const wf = await workflow([
        { name: "wait", code: suspend("$.flow.delay(4000)") },
        { name: "after", code: AFTER_PAUSE },
      ]);
      for (let n = 0; n < 12; n++) await trigger(wf, { n });
      await waitFor(
        async () =>
          (await account.api.get(`/workflows/${wf.id}/runs`, { limit: 20 })).body.data.filter((r: any) => r.status === "paused").length ===
          12,
        {
          what: "12 runs paused together",
          timeoutMs: 20_000,
        },
      );
      await waitFor(
        async () =>
          (await account.api.get(`/workflows/${wf.id}/runs`, { limit: 20 })).body.data.filter((r: any) => r.status === "succeeded")
            .length === 12,
        {
          what: "all 12 runs resumed and succeeded",
          timeoutMs: 30_000,
        },
      );
    });
  });
}
