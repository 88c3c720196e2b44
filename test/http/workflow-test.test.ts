// POST /v1/workflows/{id}/test: the builder's "Test" runs steps on a chosen event and shows
// each step's result, without storing a run, emitting or reporting an error.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const FIRST = `export default {
  async run({ steps, $ }) {
    console.log("first saw", steps.trigger.event.n);
    $.export("seen", steps.trigger.event.n);
    return { n: steps.trigger.event.n, source: steps.trigger.context.source_type };
  },
};`;
const SECOND = `export default {
  async run({ steps, $ }) {
    console.log("second doubles");
    $.send.emit({ would: "emit" });
    return steps.first.$return_value.n * 2;
  },
};`;
const FAILS = `export default { async run() { console.warn("about to throw"); throw new RangeError("no good"); } };`;

for (const dialect of DIALECTS) {
  describe(`testing a workflow's steps [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let id = "";
    before(async () => {
      app = await startTestApp(dialect, { runTimeoutSeconds: 5 });
      account = await app.newAccount();
      const created = await account.api.post("/workflows", {
        name: "tested",
        steps: [
          { name: "first", code: FIRST },
          { name: "second", code: SECOND },
        ],
      });
      assert.equal(created.status, 200, created.text);
      id = created.body.data.id;
    });
    after(async () => app.close());

    const stored = async (path: string) => (await account.api.get(`/workflows/${id}/${path}`)).body.data.length;

    it("runs the saved steps on a typed event and answers each step's result, storing nothing", async () => {
      const invocations = async () => (await account.api.get("/users/me")).body.data.daily_invocations_used as number;
      const before = await invocations();
      const res = await account.api.post(`/workflows/${id}/test`, { event: { n: 21 } });
      assert.equal(res.status, 200, res.text);
      const result = res.body.data;
      assert.equal(result.status, "succeeded");
      assert.ok(Number.isInteger(result.duration_ms));
      assert.deepEqual(
        result.steps.map((s: any) => [s.name, s.status, s.return_value, s.exports, s.logs.map((l: any) => l.message), s.error]),
        [
          ["first", "succeeded", { n: 21, source: "test" }, { seen: 21 }, ["first saw 21"], null],
          ["second", "succeeded", 42, {}, ["second doubles"], null],
        ],
      );
      assert.deepEqual(result.emits, [{ would: "emit" }]);
      assert.equal(await stored("event_summaries"), 0, "nothing emitted");
      assert.equal(await stored("event_summaries?event_name=$logs"), 0, "no $logs stored");
      assert.equal(await invocations(), before + 1, "the execution is counted");
    });

    it("runs unsaved steps through a chosen step, and reports a failure without an $errors event", async () => {
      const steps = [
        { name: "first", code: FIRST },
        { name: "breaks", code: FAILS },
        { name: "second", code: SECOND },
      ];
      const through = await account.api.post(`/workflows/${id}/test`, { event: { n: 1 }, steps, through_step: "first" });
      assert.equal(through.status, 200, through.text);
      assert.deepEqual(
        through.body.data.steps.map((s: any) => [s.name, s.status]),
        [["first", "succeeded"]],
      );

      const failed = await account.api.post(`/workflows/${id}/test`, { event: { n: 1 }, steps });
      assert.equal(failed.status, 200, failed.text);
      const result = failed.body.data;
      assert.equal(result.status, "failed");
      assert.deepEqual(
        result.steps.map((s: any) => [s.name, s.status]),
        [
          ["first", "succeeded"],
          ["breaks", "failed"],
          ["second", "skipped"],
        ],
      );
      const breaks = result.steps[1];
      assert.equal(breaks.error.name, "RangeError");
      assert.equal(breaks.error.message, "no good");
      assert.deepEqual(
        breaks.logs.map((l: any) => [l.level, l.message]),
        [["warn", "about to throw"]],
      );
      assert.equal(await stored("$errors/event_summaries"), 0, "a test's failure is not an $errors event");
      const saved = await account.api.get(`/workflows/${id}`);
      assert.deepEqual(
        saved.body.data.steps.map((s: any) => s.name),
        ["first", "second"],
        "testing does not save the steps",
      );
    });

    it("ends at a step that pauses the run ($.flow.delay), and pauses nothing", async () => {
      const steps = [
        { name: "first", code: FIRST },
        { name: "waits", code: `export default { async run({ $ }) { return $.flow.delay(60_000); } };` },
        { name: "second", code: SECOND },
      ];
      const paused = await account.api.post(`/workflows/${id}/test`, { event: { n: 1 }, steps });
      assert.equal(paused.status, 200, paused.text);
      assert.equal(paused.body.data.status, "paused");
      assert.deepEqual(
        paused.body.data.steps.map((s: any) => [s.name, s.status]),
        [
          ["first", "succeeded"],
          ["waits", "paused"],
          ["second", "skipped"],
        ],
      );
      const links = paused.body.data.steps[1].return_value;
      const resume = await fetch(links.resume_url, { method: "POST" });
      assert.equal(resume.status, 404, "a test's links lead nowhere");
      assert.equal(await stored("runs"), 0, "no run is stored");
    });

    it("answers 400 for an unknown step name or bad steps, and 404 for another account's workflow", async () => {
      const unknown = await account.api.post(`/workflows/${id}/test`, { event: {}, through_step: "nope" });
      assert.equal(unknown.status, 400, unknown.text);
      assert.match(unknown.body.error, /nope/);
      const noCode = await account.api.post(`/workflows/${id}/test`, { steps: [{ name: "x" }] });
      assert.equal(noCode.status, 400, noCode.text);
      const notObject = await account.api.post(`/workflows/${id}/test`, { steps: [null] });
      assert.equal(notObject.status, 400, notObject.text);
      const stranger = await app.newAccount();
      assert.equal((await stranger.api.post(`/workflows/${id}/test`, { event: {} })).status, 404);
    });
  });
}
