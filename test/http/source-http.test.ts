// The public HTTP interface of sources: the event shape, durable 200, custom responses,
// failures before responding, $.service.db, named streams, $logs, $errors, 413 and 404.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, DIALECTS } from "../helpers/dialects.js";
import { ApiClient } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitFor } from "../helpers/wait-for.js";

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

for (const dialect of DIALECTS) {
  describe(`source HTTP endpoints [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let scripted: any;
    let endpoint: string;
    before(async () => {
      app = await startTestApp(dialect, { runTimeoutSeconds: 2 });
      account = await app.newAccount();
      scripted = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      endpoint = scripted.configured_props.http.endpoint_url;
    });
    after(async () => app.close());

    it("answers 200 at once and runs the code with {method, path, query, headers, bodyRaw, body}", async () => {
      const res = await fetch(`${endpoint}/some/path?a=1&b=two`, {
        method: "PUT",
        headers: { "content-type": "application/json", "X-Custom-Header": "Value" },
        body: JSON.stringify({ echo: true, n: 1 }),
      });
      assert.equal(res.status, 200);
      const [summary] = await waitForEvents(account.api, scripted.id, 1);
      const event = summary.event;
      assert.equal(event.method, "PUT");
      assert.equal(event.path, "/some/path");
      assert.deepEqual(event.query, { a: "1", b: "two" });
      assert.equal(event.headers["x-custom-header"], "Value");
      assert.equal(event.bodyRaw, JSON.stringify({ echo: true, n: 1 }));
      assert.deepEqual(event.body, { echo: true, n: 1 });
      assert.match(summary.id, /^\d+-\d+$/);
      assert.equal(summary.metadata.emitter_id, scripted.id);
      assert.equal(summary.metadata.name, "");
      assert.equal(typeof summary.metadata.emit_id, "string");

      const text = await fetch(endpoint, { method: "POST", headers: { "content-type": "text/plain" }, body: "plain words" });
      assert.equal(text.status, 200);
      const get = await fetch(`${endpoint}?x=1`);
      assert.equal(get.status, 200);
    });

    it("keeps $.service.db across executions and emits on named streams, with the emit's meta", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const url = source.configured_props.http.endpoint_url;
      for (let i = 0; i < 5; i++) assert.equal((await post(url, {})).status, 200);
      const counts = await waitForEvents(account.api, source.id, 5, { event_name: "counter" });
      assert.deepEqual(
        counts.map((s) => s.event.count),
        [5, 4, 3, 2, 1],
        "no execution lost another's write",
      );
      assert.equal(counts[0].metadata.name, "counter");
      assert.deepEqual(await summaries(account.api, source.id), [], "nothing on the default stream");

      await post(url, {
        emits: [
          { event: { late: true }, meta: { id: "b", summary: "second", ts: 2000 } },
          { event: { early: true }, meta: { id: "a", summary: "first", ts: 1000 } },
        ],
      });
      const emitted = await waitForEvents(account.api, source.id, 2);
      // Newest first; stored in meta.ts order, so the early one was stored first.
      assert.deepEqual(
        emitted.map((s) => s.event),
        [{ late: true }, { early: true }],
      );
      assert.deepEqual([emitted[1].metadata.id, emitted[1].metadata.summary, emitted[1].metadata.ts], ["a", "first", 1000]);
      const [newer, older] = emitted.map((s) => s.id.split("-").map(Number));
      assert.ok(newer[0] > older[0] || (newer[0] === older[0] && newer[1] > older[1]), "ids increase");
    });

    it("executions of one source never lose each other's $.service.db writes, also across processes on PostgreSQL", async () => {
      // On PostgreSQL a second Sluice with the worker role stands for another process taking
      // the same source's jobs; SQLite serves one process (docs/architecture.md, "Transactions").
      const other = dialect === "postgres" ? await startTestApp(dialect, {}, { roles: ["worker"], database: app.database }) : undefined;
      try {
        const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
        const url = source.configured_props.http.endpoint_url;
        const statuses = await Promise.all(Array.from({ length: 20 }, () => post(url, {}).then((r) => r.status)));
        assert.deepEqual(new Set(statuses), new Set([200]));
        const counts = await waitForEvents(account.api, source.id, 20, { event_name: "counter" }, 30_000);
        assert.deepEqual(
          counts.map((s) => s.event.count),
          Array.from({ length: 20 }, (_, i) => 20 - i),
        );
      } finally {
        await other?.close();
      }
    });

    it("console output goes to $logs and a thrown error to $errors with the original event", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const url = source.configured_props.http.endpoint_url;
      await post(url, {
        logs: [
          { level: "log", message: "hello log" },
          { level: "error", message: "bad thing" },
        ],
        throw: "it broke",
      });
      const logs = await waitForEvents(account.api, source.id, 2, { event_name: "$logs" });
      assert.deepEqual(logs.map((s) => s.event).reverse(), [
        { level: "log", message: "hello log" },
        { level: "error", message: "bad thing" },
      ]);
      const [error] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors" });
      assert.equal(error.event.error.name, "TypeError");
      assert.equal(error.event.error.message, "it broke");
      assert.equal(typeof error.event.error.stack, "string");
      assert.deepEqual(error.event.original_event.body, {
        logs: [
          { level: "log", message: "hello log" },
          { level: "error", message: "bad thing" },
        ],
        throw: "it broke",
      });
      assert.equal(error.metadata.name, "$errors");
    });

    it("custom responses: numeric-string status, headers, JSON body; a second respond is ignored", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("http-respond.mjs") });
      const url = source.configured_props.http.endpoint_url;
      const res = await post(url, { hello: "world" });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get("x-test"), "yes");
      assert.deepEqual(await res.json(), { got: { hello: "world" }, method: "POST" });
      const [emitted] = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(emitted.event, { responded: true, body: { hello: "world" } });
    });

    it("a custom response is sent only once the run's events are stored, and still when the code fails after responding", async () => {
      // The code emits, responds, then keeps working: the 2xx accepts the event, so it must
      // already be stored when the client reads the response (docs/architecture.md, "Delivery").
      const code = `export default {
        name: "respond-then-work",
        props: { http: { type: "$.interface.http", customResponse: true } },
        async run(event) {
          this.$emit({ accepted: event.body });
          this.http.respond({ status: 202, body: { ok: true } });
          await new Promise((resolve) => setTimeout(resolve, 400));
          if (event.body.failAfter) throw new Error("failed after responding");
        },
      };`;
      const source = await createSource(account.api, { component_code: code });
      const url = source.configured_props.http.endpoint_url;
      const res = await post(url, { n: 1 });
      assert.equal(res.status, 202);
      assert.deepEqual(await res.json(), { ok: true });
      assert.deepEqual(
        (await summaries(account.api, source.id)).map((s) => s.event),
        [{ accepted: { n: 1 } }],
      );

      const late = await post(url, { n: 2, failAfter: true });
      assert.equal(late.status, 202, "the code's response stands although the run failed later");
      assert.equal((await summaries(account.api, source.id)).length, 2);
      const [error] = await summaries(account.api, source.id, { event_name: "$errors" });
      assert.equal(error.event.error.message, "failed after responding");
    });

    it("a response given before the run times out is still sent; the timeout goes to $errors", async () => {
      const code = `export default {
        name: "respond-then-hang",
        props: { http: { type: "$.interface.http", customResponse: true } },
        async run() {
          this.http.respond({ status: 200, body: { early: true } });
          await new Promise(() => {}); // never ends: killed at the 2 s limit
        },
      };`;
      const source = await createSource(account.api, { component_code: code });
      const res = await post(source.configured_props.http.endpoint_url, {});
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { early: true });
      const [error] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors" });
      assert.match(error.event.error.name, /Timeout/);
    });

    it("a custom response with a status outside 200..599 (1xx included) is an error of the code: 500 naming it, and $errors", async () => {
      const code = `export default {
        name: "bad-status",
        props: { http: { type: "$.interface.http", customResponse: true } },
        async run(event) {
          if (event.query.status === "ok") return this.http.respond({ status: 200, body: { ok: true } });
          this.http.respond({ status: Number(event.query.status), headers: { "x-null": null }, body: "nope" });
        },
      };`;
      const source = await createSource(account.api, { component_code: code });
      const url = new URL(source.configured_props.http.endpoint_url);
      // One keep-alive connection for every request: an informational answer must not leave
      // the client waiting, nor shift the answers of the requests after it.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const get = (status: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          http
            .get(`${url.href}?status=${status}`, { agent }, (res) => {
              let body = "";
              res.setEncoding("utf8");
              res.on("data", (chunk) => (body += chunk));
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
            })
            .on("error", reject);
        });
      try {
        for (const status of ["999", "101", "100", "199"]) {
          const res = await get(status);
          assert.equal(res.status, 500, `status ${status}`);
          assert.match(JSON.parse(res.body).error, new RegExp(`status must be a final HTTP status, 200\\.\\.599, got ${status}`));
          const ok = await get("ok");
          assert.deepEqual([ok.status, JSON.parse(ok.body)], [200, { ok: true }], `the answer after ${status} is its own`);
        }
      } finally {
        agent.destroy();
      }
      const errors = await waitForEvents(account.api, source.id, 4, { event_name: "$errors" });
      assert.ok(errors.every((error) => error.event.error.name === "TypeError"));
    });

    it("a custom-response run that throws or times out answers 500 naming the failure, and records $errors", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("http-respond.mjs") });
      const url = source.configured_props.http.endpoint_url;
      const failed = await fetch(`${url}?mode=fail`, { method: "POST" });
      assert.equal(failed.status, 500);
      const body = await failed.json();
      assert.match(body.error, /error/);
      assert.match(body.error, /nope before responding/);
      const timedOut = await fetch(`${url}?mode=loop`);
      assert.equal(timedOut.status, 500);
      assert.match((await timedOut.json()).error, /timeout/);
      const errors = await waitForEvents(account.api, source.id, 2, { event_name: "$errors" });
      assert.equal(errors[1].event.error.name, "RangeError");
      assert.deepEqual(errors[1].event.original_event.query, { mode: "fail" });
      assert.deepEqual(errors[0].event.original_event.query, { mode: "loop" });
      // The source still works afterwards.
      assert.equal((await post(url, { again: 1 })).status, 201);
    });

    it("refuses bodies over 512 KB with a JSON 413", async () => {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: Buffer.alloc(512 * 1024 + 1, 97),
      });
      assert.equal(res.status, 413);
      assert.equal(typeof (await res.json()).error, "string");
      const fits = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: Buffer.alloc(512 * 1024 - 10, 97),
      });
      assert.equal(fits.status, 200);
    });

    it("a disabled source's endpoint answers 404 until enabled; a deleted one 404 for good; unknown keys 404", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const url = source.configured_props.http.endpoint_url;
      assert.equal((await post(url, {})).status, 200);
      await account.api.put(`/sources/${source.id}`, { component_id: source.component_id, active: false });
      const disabled = await post(url, {});
      assert.equal(disabled.status, 404);
      assert.equal(typeof (await disabled.json()).error, "string");
      await account.api.put(`/sources/${source.id}`, { component_id: source.component_id, active: true });
      assert.equal((await post(url, {})).status, 200);
      await account.api.delete(`/sources/${source.id}`);
      assert.equal((await post(url, {})).status, 404);
      assert.equal((await fetch(`${app.origin}/e/nosuchkey`)).status, 404);
    });

    it("counts invocations and compute time in GET /users/me", async () => {
      const fresh = await app.newAccount();
      const source = await createSource(fresh.api, { component_code: fixtureCode("http-scripted.cjs") });
      for (let i = 0; i < 3; i++) await post(source.configured_props.http.endpoint_url, {});
      await waitFor(
        async () => {
          const me = await fresh.api.get("/users/me");
          return me.body.data.daily_invocations_used === 3 ? me : undefined;
        },
        { what: "3 invocations", timeoutMs: 20_000 },
      );
      const me = await fresh.api.get("/users/me");
      assert.ok(me.body.data.daily_compute_time_used >= 0);
    });
  });

  describe(`source quotas [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { freeDailyInvocations: 2 });
    });
    after(async () => app.close());

    it("over the free daily invocation quota, endpoints answer 429 with Retry-After; paid plans are not limited", async () => {
      const free = await app.newAccount({ plan: "free" });
      const source = await createSource(free.api, { component_code: fixtureCode("http-scripted.cjs") });
      const url = source.configured_props.http.endpoint_url;
      for (let i = 0; i < 2; i++) assert.equal((await post(url, {})).status, 200);
      await waitForEvents(free.api, source.id, 2, { event_name: "counter" });
      const limited = await post(url, {});
      assert.equal(limited.status, 429);
      const retryAfter = Number(limited.headers.get("retry-after"));
      assert.ok(retryAfter >= 1 && retryAfter <= 86_400, `retry-after ${retryAfter}`);
      assert.match((await limited.json()).error, /quota/);
      const me = await free.api.get("/users/me");
      assert.equal(me.body.data.daily_invocations_used, 2);

      const paid = await app.newAccount({ plan: "paid" });
      const paidSource = await createSource(paid.api, { component_code: fixtureCode("http-scripted.cjs") });
      for (let i = 0; i < 3; i++) assert.equal((await post(paidSource.configured_props.http.endpoint_url, {})).status, 200);
      await waitForEvents(paid.api, paidSource.id, 3, { event_name: "counter" });
      const paidMe = await paid.api.get("/users/me");
      assert.equal(paidMe.body.data.billing_period_invocations, 3);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`source compute-time quota [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      // A zero compute quota is used up by the first execution, however short.
      app = await startTestApp(dialect, { freeDailyComputeMs: 0 });
    });
    after(async () => app.close());

    it("over the free daily compute-time quota, endpoints answer 429 naming it", async () => {
      const free = await app.newAccount({ plan: "free" });
      const source = await createSource(free.api, { component_code: fixtureCode("http-scripted.cjs") });
      const url = source.configured_props.http.endpoint_url;
      assert.equal((await post(url, {})).status, 200);
      await waitForEvents(free.api, source.id, 1, { event_name: "counter" });
      const limited = await post(url, {});
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) >= 1);
      assert.match((await limited.json()).error, /compute time quota/);
    });
  });

  describe(`source work survives a restart [${dialect}]`, () => {
    it("a request answered 200 and a queued event deletion are carried out by a worker started later", async () => {
      const database = await createTestDatabase(dialect);
      try {
        // An API-only process: it answers and queues, but runs nothing.
        const apiOnly = await startTestApp(dialect, {}, { roles: ["api"], database });
        const account = await apiOnly.newAccount();
        const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
        const url = source.configured_props.http.endpoint_url;
        assert.equal((await post(url, { emits: [{ event: { keep: 1 } }, { event: { drop: 1 } }] })).status, 200);
        await apiOnly.close();

        const worker = await startTestApp(dialect, {}, { roles: ["api", "worker"], database });
        try {
          const api = new ApiClient(worker.baseUrl, account.apiKey);
          const stored = await waitForEvents(api, source.id, 2);
          assert.deepEqual(
            stored.map((s: any) => s.event),
            [{ drop: 1 }, { keep: 1 }],
          );
          await worker.close();

          const apiAgain = await startTestApp(dialect, {}, { roles: ["api"], database });
          const deletion = await new ApiClient(apiAgain.baseUrl, account.apiKey).delete(`/sources/${source.id}/events`, {
            start_id: stored[0].id,
          });
          assert.equal(deletion.status, 202);
          await apiAgain.close();

          const workerAgain = await startTestApp(dialect, {}, { roles: ["api", "worker"], database });
          try {
            const apiNow = new ApiClient(workerAgain.baseUrl, account.apiKey);
            await waitFor(
              async () => {
                const left = await summaries(apiNow, source.id);
                return left.length === 1 && left[0].event.keep === 1;
              },
              { what: "the queued deletion", timeoutMs: 20_000 },
            );
          } finally {
            await workerAgain.close();
          }
        } finally {
          await worker.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
