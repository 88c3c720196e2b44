import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import * as code from "../fixtures/workflows/steps.js";
import { waitFor } from "../helpers/wait-for.js";

const trigger = (url: string, init: { method?: string; json?: unknown; query?: Record<string, string>; path?: string } = {}) =>
  request(url + (init.path ?? ""), init.method ?? "POST", "", { json: init.json, query: init.query });

async function summaries(account: Account, id: string, path = "event_summaries", query: Record<string, string | number> = {}) {
  const res = await account.api.get(`/workflows/${id}/${path}`, query);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

for (const dialect of DIALECTS) {
  describe(`workflows [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect, { runTimeoutSeconds: 3, sseKeepaliveSeconds: 1 });
      account = await app.newAccount();
    });
    after(async () => app.close());

    it("creates, reads, lists, updates and deletes a workflow; steps keep their ids", async () => {
      const created = await account.api.post("/workflows", {
        name: "crud",
        steps: [{ code: code.RETURN_EVENT_BODY }, { name: "second", code: code.DOUBLE_PREVIOUS }],
      });
      assert.equal(created.status, 200, created.text);
      const wf = created.body.data;
      assert.match(wf.id, /^p_/);
      assert.equal(wf.name, "crud");
      assert.equal(wf.active, true);
      assert.equal(wf.global_error_workflow, false);
      assert.match(wf.endpoint_url, new RegExp(`^${app.origin}/w/[A-Za-z0-9]+$`));
      assert.deepEqual(
        wf.steps.map((s: any) => s.name),
        ["step_1", "second"],
      );
      assert.ok(wf.steps.every((s: any) => /^c_/.test(s.id)));
      assert.ok(Number.isInteger(wf.created_at) && wf.created_at < 1e11, "unix seconds");

      const read = await account.api.get(`/workflows/${wf.id}`);
      assert.deepEqual(read.body.data, wf);

      const list = await account.api.get("/users/me/workflows", { limit: 100 });
      assert.equal(list.status, 200);
      assert.ok(list.body.data.some((w: any) => w.id === wf.id));
      assert.ok(
        list.body.data.some((w: any) => w.global_error_workflow === true),
        "the account's global error workflow is listed",
      );
      assert.equal(list.body.page_info.total_count, list.body.data.length);

      const updated = await account.api.put(`/workflows/${wf.id}`, {
        name: "renamed",
        active: false,
        steps: [{ id: wf.steps[1].id, name: "second", code: code.RETURN_EVENT_BODY }, { code: code.NEVER_RUNS }],
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.data.name, "renamed");
      assert.equal(updated.body.data.active, false);
      assert.equal(updated.body.data.steps[0].id, wf.steps[1].id);
      assert.notEqual(updated.body.data.steps[1].id, wf.steps[0].id);
      assert.equal(updated.body.data.endpoint_url, wf.endpoint_url);

      const inactive = await trigger(wf.endpoint_url, { json: {} });
      assert.equal(inactive.status, 404, "an inactive workflow's endpoint refuses requests");

      const projected = await account.api.get(`/workflows/${wf.id}`, { include: "id,name" });
      assert.deepEqual(Object.keys(projected.body.data).sort(), ["id", "name"]);

      assert.equal((await account.api.delete(`/workflows/${wf.id}`)).status, 204);
      assert.equal((await account.api.get(`/workflows/${wf.id}`)).status, 404);
      assert.equal((await trigger(wf.endpoint_url, { json: {} })).status, 404);
    });

    it("paginates the account's workflows with cursors", async () => {
      const other = await app.newAccount();
      for (let i = 0; i < 3; i++)
        assert.equal((await other.api.post("/workflows", { name: `w${i}`, steps: [{ code: code.NEVER_RUNS }] })).status, 200);
      const first = await other.api.get("/users/me/workflows", { limit: 2 });
      assert.equal(first.body.page_info.total_count, 4, "three workflows and the global error workflow");
      assert.equal(first.body.data.length, 2);
      const next = await other.api.get("/users/me/workflows", { limit: 2, after: first.body.page_info.end_cursor });
      assert.equal(next.body.data.length, 2);
      const ids = new Set([...first.body.data, ...next.body.data].map((w: any) => w.id));
      assert.equal(ids.size, 4);
      assert.equal((await other.api.get("/users/me/workflows", { limit: 101 })).status, 400);
    });

    it("refuses bad input with clear 400s, and other accounts' workflows with 404", async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ steps: [] }, /steps/],
        [{ name: "x" }, /steps/],
        [{ steps: [{ code: code.SYNTAX_ERROR }] }, /step "step_1": SyntaxError/],
        [{ steps: [{ code: code.NO_RUN }] }, /step "step_1": .*run\(\{ steps, \$ \}\)/],
        [{ steps: [{ name: "trigger", code: code.NEVER_RUNS }] }, /reserved/],
        [
          {
            steps: [
              { name: "a", code: code.NEVER_RUNS },
              { name: "a", code: code.NEVER_RUNS },
            ],
          },
          /used by another step/,
        ],
        [{ steps: [{ name: "bad name", code: code.NEVER_RUNS }] }, /name/],
        [{ steps: [{ code: code.NEVER_RUNS }], bogus: 1 }, /bogus/],
        [{ steps: [{ code: 42 }] }, /code/],
      ];
      for (const [body, message] of cases) {
        const res = await account.api.post("/workflows", body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
        assert.match(res.body.error, message);
      }
      const bad = await request(app.baseUrl, "POST", "/workflows", {
        key: account.apiKey,
        raw: "{nope",
        headers: { "content-type": "application/json" },
      });
      assert.equal(bad.status, 400);

      const mine = (await account.api.post("/workflows", { steps: [{ code: code.NEVER_RUNS }] })).body.data;
      const stranger = await app.newAccount();
      assert.equal((await stranger.api.get(`/workflows/${mine.id}`)).status, 404);
      assert.equal((await stranger.api.put(`/workflows/${mine.id}`, { name: "mine" })).status, 404);
      assert.equal((await stranger.api.delete(`/workflows/${mine.id}`)).status, 404);
      assert.equal((await stranger.api.get(`/workflows/${mine.id}/event_summaries`)).status, 404);
      assert.equal((await account.api.put(`/workflows/${mine.id}`, { steps: [{ id: "c_notmine", code: code.NEVER_RUNS }] })).status, 400);
    });

    it("runs steps in order on an HTTP trigger: 200 at once, data flows between steps, $send.emit summaries", async () => {
      const wf = (
        await account.api.post("/workflows", {
          steps: [{ code: code.RETURN_EVENT_BODY }, { code: code.DOUBLE_PREVIOUS }, { code: code.EMIT_RESULTS }],
        })
      ).body.data;
      const res = await trigger(wf.endpoint_url, { json: { n: 21 } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: "accepted" });
      const page = await waitFor(
        async () => {
          const body = await summaries(account, wf.id);
          return body.data.length === 2 && body;
        },
        { what: "two emits", timeoutMs: 15_000, retryErrors: true },
      );
      assert.equal(page.page_info.total_count, 2);
      const [newest, oldest] = page.data;
      assert.deepEqual(oldest.event, { raw_event: { doubled: 42, second: "second" } });
      assert.deepEqual(newest.event, { plain: true });
      assert.equal(oldest.metadata.emitter_id, wf.id);
      assert.equal(oldest.metadata.name, "");
      assert.equal(typeof oldest.metadata.emit_id, "string");
      assert.ok(newest.id > oldest.id || newest.indexed_at_ms >= oldest.indexed_at_ms);

      const logs = await waitFor(
        async () => {
          const body = await summaries(account, wf.id, "event_summaries", { event_name: "$logs" });
          return body.data.length > 0 && body;
        },
        { timeoutMs: 15_000, retryErrors: true },
      );
      assert.deepEqual(logs.data[0].event, { level: "log", message: "emitting 42" });

      const limited = await summaries(account, wf.id, "event_summaries", { limit: 1 });
      assert.equal(limited.data.length, 1);
      const rest = await summaries(account, wf.id, "event_summaries", { limit: 1, after: limited.page_info.end_cursor });
      assert.deepEqual(rest.data[0].event, oldest.event);

      const usage = await account.api.get("/users/me");
      assert.ok(usage.body.data.daily_invocations_used >= 1, "runs count as invocations");
    });

    it("answers with $.respond and waits for it; the event carries method, path, query, headers, body, url, client_ip", async () => {
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.RESPOND_WITH_QUERY }, { code: code.EMIT_TRIGGER_EVENT }] }))
        .body.data;
      const res = await trigger(wf.endpoint_url, { method: "PUT", path: "/sub/path", query: { a: "1" }, json: { hello: "world" } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.get("x-custom"), "yes");
      assert.deepEqual(res.body, { echo: { a: "1" }, path: "/sub/path" });
      const page = await waitFor(
        async () => {
          const body = await summaries(account, wf.id);
          return body.data.length === 1 && body;
        },
        { timeoutMs: 15_000, retryErrors: true },
      );
      const { received, source_type } = page.data[0].event;
      assert.equal(source_type, "http");
      assert.equal(received.method, "PUT");
      assert.equal(received.path, "/sub/path");
      assert.deepEqual(received.query, { a: "1" });
      assert.deepEqual(received.body, { hello: "world" });
      assert.equal(received.headers["content-type"], "application/json");
      assert.equal(received.url, `${wf.endpoint_url}/sub/path?a=1`);
      assert.equal(received.client_ip, "127.0.0.1");

      const tooLarge = await request(wf.endpoint_url, "POST", "", {
        raw: "x".repeat(600 * 1024),
        headers: { "content-type": "text/plain" },
      });
      assert.equal(tooLarge.status, 413);
      assert.equal(typeof tooLarge.body.error, "string");
    });

    it("sends the $.respond answer only once the run's events are stored", async () => {
      // The step emits, responds, then keeps working: the 2xx accepts the emit, so it must
      // already be stored when the client reads the response (docs/architecture.md, "Delivery").
      const step = `export default { async run({ steps, $ }) {
        $.send.emit({ accepted: steps.trigger.event.body });
        await $.respond({ status: 202, body: { ok: true } });
        await new Promise((resolve) => setTimeout(resolve, 400));
      } }`;
      const wf = (await account.api.post("/workflows", { steps: [{ code: step }] })).body.data;
      const res = await trigger(wf.endpoint_url, { json: { n: 1 } });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { ok: true });
      const page = await summaries(account, wf.id);
      assert.deepEqual(
        page.data.map((summary: any) => summary.event),
        [{ accepted: { n: 1 } }],
      );
    });

    it("$.flow.exit() ends the run: later code and later steps do not run", async () => {
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.EXIT_EARLY }, { code: code.NEVER_RUNS }] })).body.data;
      assert.equal((await trigger(wf.endpoint_url, { json: {} })).status, 200);
      const page = await waitFor(
        async () => {
          const body = await summaries(account, wf.id);
          return body.data.length > 0 && body;
        },
        { timeoutMs: 15_000, retryErrors: true },
      );
      // A run's events are stored together when it ends: nothing after the exit can follow.
      assert.deepEqual(
        page.data.map((summary: any) => summary.event),
        [{ before_exit: true }],
      );
      assert.equal(page.data.length, 1);
    });

    it("stores a thrown error on $errors with every field, and replays its original event", async () => {
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.QUIET }, { name: "failing", code: code.THROWS }] })).body
        .data;
      // Padding makes the error event larger than 1 KB, for the truncation check below.
      const triggerBody = { ok: false, padding: "x".repeat(1500) };
      assert.equal((await trigger(wf.endpoint_url, { json: triggerBody })).status, 200);
      const page = await waitFor(
        async () => {
          const body = await summaries(account, wf.id, "$errors/event_summaries", { expand: "event" });
          return body.data.length === 1 && body;
        },
        { what: "an error summary", timeoutMs: 15_000, retryErrors: true },
      );
      const summary = page.data[0];
      assert.equal(summary.metadata.name, "$errors");
      assert.equal(summary.metadata.emitter_id, wf.id);
      assert.deepEqual(Object.keys(summary.event).sort(), ["error", "original_context", "original_event"]);
      const { original_event, original_context, error } = summary.event;
      assert.deepEqual(original_event.body, triggerBody);
      assert.equal(original_event.method, "POST");
      assert.deepEqual(Object.keys(original_context).sort(), [
        "deployment_id",
        "id",
        "owner_id",
        "platform_version",
        "source_type",
        "ts",
        "verified",
        "workflow_id",
      ]);
      assert.equal(original_context.workflow_id, wf.id);
      assert.equal(original_context.owner_id, account.id);
      assert.equal(original_context.source_type, "http");
      assert.equal(original_context.verified, false);
      assert.match(original_context.deployment_id, /^d_/);
      assert.match(original_context.platform_version, /^sluice\/\d/);
      assert.equal(typeof original_context.id, "string");
      assert.ok(!Number.isNaN(Date.parse(original_context.ts)) && original_context.ts.endsWith("Z"));
      assert.deepEqual(Object.keys(error).sort(), ["cellId", "code", "stack", "ts"]);
      assert.equal(error.code, "TypeError");
      assert.equal(error.cellId, wf.steps[1].id, "cellId names the failing step");
      assert.match(error.stack, /TypeError: boom from step/);
      assert.ok(!Number.isNaN(Date.parse(error.ts)));
      // Without expand=event an error over 1 KB is truncated, as for sources.
      const short = await summaries(account, wf.id, "$errors/event_summaries");
      assert.equal(short.data[0].event.$truncated, true);
      assert.equal(short.data[0].metadata.truncated, true);
      // The same errors are readable as ?event_name=$errors.
      assert.equal((await summaries(account, wf.id, "event_summaries", { event_name: "$errors" })).data[0].id, summary.id);

      // Replay runs the workflow again on the original event (here changed so it succeeds).
      const fixed = await account.api.put(`/workflows/${wf.id}`, { steps: [{ code: code.EMIT_TRIGGER_EVENT }] });
      assert.equal(fixed.status, 200);
      const replay = await account.api.post(`/workflows/${wf.id}/$errors/${summary.id}/replay`);
      assert.equal(replay.status, 202, replay.text);
      assert.deepEqual(replay.body.data.original_event, original_event);
      const replayed = await waitFor(
        async () => {
          const body = await summaries(account, wf.id, "event_summaries", { expand: "event" });
          return body.data.length === 1 && body;
        },
        { what: "the replayed run's emit", timeoutMs: 15_000, retryErrors: true },
      );
      assert.deepEqual(replayed.data[0].event.received, original_event);
      assert.equal(replayed.data[0].event.source_type, "replay");
      assert.equal((await account.api.post(`/workflows/${wf.id}/$errors/1-0/replay`)).status, 404);
    });

    it("live tail: new emits arrive as Server-Sent Events", async () => {
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.EMIT_TRIGGER_EVENT }] })).body.data;
      const controller = new AbortController();
      const res = await fetch(`${app.baseUrl}/workflows/${wf.id}/sse`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
        signal: controller.signal,
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
      const reader = res.body!.getReader();
      await trigger(wf.endpoint_url, { json: { live: true } });
      let text = "";
      const deadline = Date.now() + 10_000;
      while (!/\ndata: /.test(text) || !text.includes("\n\n", text.indexOf("data: "))) {
        assert.ok(Date.now() < deadline, "an SSE event within the deadline");
        const chunk = await reader.read();
        if (chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
      // SLUICE_SSE_KEEPALIVE_SECONDS applies to workflow tails too (1 s here, 15 s by default):
      // the stream is cut after 5 s, so only the configured interval can pass.
      const cutOff = setTimeout(() => controller.abort(), 5_000);
      try {
        while (!text.includes(": keepalive\n\n")) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += new TextDecoder().decode(chunk.value);
        }
      } catch {
        // aborted at the cut-off
      } finally {
        clearTimeout(cutOff);
      }
      assert.ok(text.includes(": keepalive\n\n"), "a keep-alive comment within 5 s");
      controller.abort();
      const id = /id: (\S+)/.exec(text)?.[1];
      const data = JSON.parse(/data: (.*)\n/.exec(text)![1]!);
      assert.equal(data.id, id);
      assert.deepEqual(data.event.received.body, { live: true });
      assert.equal((await stranger(app)).status, 404);

      async function stranger(testApp: TestApp) {
        const other = await testApp.newAccount();
        return other.api.get(`/workflows/${wf.id}/sse`);
      }
    });

    it("a timeout ends the run with a TIMEOUT error; with $.respond pending the request gets a JSON 500", async () => {
      const wf = (
        await account.api.post("/workflows", {
          steps: [{ code: code.QUIET }, { code: code.LOOP_FOREVER }, { code: code.RESPOND_WITH_QUERY }],
        })
      ).body.data;
      const res = await trigger(wf.endpoint_url, { json: {} });
      assert.equal(res.status, 500);
      assert.match(res.body.error, /timed out/);
      const page = await waitFor(
        async () => {
          const body = await summaries(account, wf.id, "$errors/event_summaries", { expand: "event" });
          return body.data.length === 1 && body;
        },
        { timeoutMs: 15_000, retryErrors: true },
      );
      assert.equal(page.data[0].event.error.code, "TIMEOUT");
      assert.equal(page.data[0].event.error.cellId, wf.steps[1].id, "the step that was running when the run was killed");
      assert.equal((await request(app.origin, "GET", "/healthz")).status, 200);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`workflow quotas [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { freeDailyInvocations: 1 });
    });
    after(async () => app.close());

    it("over the daily quota, endpoints answer 429 and delivered runs are skipped and reported on $errors", async () => {
      const account = await app.newAccount({ plan: "free" });
      const first = (await account.api.post("/workflows", { steps: [{ code: code.EMIT_TRIGGER_EVENT }] })).body.data;
      const second = (await account.api.post("/workflows", { steps: [{ code: code.EMIT_TRIGGER_EVENT }] })).body.data;
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: first.id, listener_id: second.id })).status, 200);

      assert.equal((await trigger(first.endpoint_url, { json: { n: 1 } })).status, 200);
      const skipped = await waitFor(
        async () => {
          const body = await summaries(account, second.id, "$errors/event_summaries", { expand: "event" });
          return body.data.length === 1 && body.data[0];
        },
        { what: "the skipped run's error", timeoutMs: 15_000, retryErrors: true },
      );
      assert.equal(skipped.event.error.code, "QUOTA_EXCEEDED");
      assert.equal(skipped.event.original_context.source_type, "subscription");
      assert.equal(skipped.event.original_event.received.body.n, 1, "the delivered event is kept for a replay");
      assert.equal((await summaries(account, second.id)).data.length, 0, "the skipped run emitted nothing");

      const refused = await trigger(first.endpoint_url, { json: { n: 2 } });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get("retry-after")) > 0);
      assert.equal(typeof refused.body.error, "string");
    });
  });
}
