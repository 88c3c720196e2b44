// The public endpoints are served by node:http in front of Fastify (src/http/public-endpoints.ts):
// what Fastify gave them must still hold — request ids, query strings parsed as for the API,
// JSON errors for what cannot be served, body limits however the body is framed — and a
// response the code gave that HTTP cannot carry must not take the service down. Sources (/e/)
// and workflows (/w/) go through one pipeline and answer every failure the same way.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode } from "../fixtures/components/sources/helpers.js";
import * as steps from "../fixtures/workflows/steps.js";

// Responds with what the request's JSON body asks for, or describes the request.
const RESPONDER = `export default {
  name: "responder",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) {
    const ask = event.body && typeof event.body === "object" ? event.body : {};
    this.http.respond({ status: ask.status ?? 200, headers: ask.headers ?? {}, body: ask.body ?? { method: event.method, path: event.path, query: event.query } });
  },
};`;

const ask = (url: string, body: unknown, init: RequestInit = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), ...init });

/** POSTs `chunks` with chunked transfer encoding (no content-length) and reads the answer. */
function postChunked(url: string, chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers: { "content-type": "application/octet-stream" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (text: string) => (body += text));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may answer and stop reading before the whole body is written.
    req.on("error", (error) => (req.writableEnded ? undefined : reject(error)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

for (const dialect of DIALECTS) {
  describe(`public endpoints in front of Fastify [${dialect}]`, () => {
    let app: TestApp;
    let endpoint: string;
    before(async () => {
      app = await startTestApp(dialect);
      const account = await app.newAccount();
      const source = await createSource(account.api, { component_code: RESPONDER });
      endpoint = source.configured_props.http.endpoint_url;
    });
    after(async () => app.close());

    it("answers with a request id, the code's status and headers, and the length of the body it sends", async () => {
      const res = await ask(`${endpoint}/deep/path`, {
        status: 202,
        headers: { "x-answer": "42", "content-length": "999" },
        body: "hello",
      });
      assert.equal(res.status, 202);
      assert.match(res.headers.get("x-request-id") ?? "", /^req_\w{12}$/);
      assert.equal(res.headers.get("x-answer"), "42");
      assert.equal(res.headers.get("content-length"), "5");
      assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
      assert.equal(await res.text(), "hello");
      const other = await ask(endpoint, {});
      assert.notEqual(other.headers.get("x-request-id"), res.headers.get("x-request-id"));
    });

    it("parses query strings as the API does: repeated keys become lists, escapes are decoded", async () => {
      const res = await fetch(`${endpoint}/p%20q?a=1&a=2&b=%20x&c`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
      assert.deepEqual(await res.json(), { method: "GET", path: "/p%20q", query: { a: ["1", "2"], b: " x", c: "" } });
      const head = await fetch(endpoint, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), "");
    });

    it("a header the code gave that HTTP cannot carry is a 500 naming the problem, and the endpoint keeps serving", async () => {
      for (const headers of [{ "bad name": "x" }, { "x-value": "line\nbreak" }]) {
        const res = await ask(endpoint, { headers, body: "never sent" });
        assert.equal(res.status, 500);
        assert.match(res.headers.get("x-request-id") ?? "", /^req_/);
        assert.match((await res.json()).error, /cannot be sent/);
      }
      assert.equal((await ask(endpoint, { status: 201 })).status, 201);
    });

    it("unknown methods, a missing key and an over-long key get the API's JSON 404, a malformed one a 400; an unknown key its own 404", async () => {
      for (const [url, method] of [
        [endpoint, "PURGE"],
        [`${app.origin}/e/`, "GET"],
        [`${app.origin}/e//x`, "POST"],
        [`${app.origin}/e/${"k".repeat(300)}`, "GET"],
      ] as const) {
        const res = await fetch(url, { method });
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal(typeof (await res.json()).error, "string");
      }
      const malformed = await fetch(`${app.origin}/e/%E0%A4%A`);
      assert.equal(malformed.status, 400);
      assert.equal(typeof (await malformed.json()).error, "string");
      const unknown = await fetch(`${app.origin}/e/no_such_key`, { method: "POST" });
      assert.equal(unknown.status, 404);
      assert.deepEqual(await unknown.json(), { error: "record not found", code: "NOT_FOUND" });
    });

    it("refuses a body over 512 KB sent without a declared length with a JSON 413, then serves the next request", async () => {
      const over = await postChunked(
        endpoint,
        Array.from({ length: 9 }, () => Buffer.alloc(64 * 1024, 97)),
      );
      assert.equal(over.status, 413);
      assert.deepEqual(JSON.parse(over.body), { error: "request body is too large", code: "PAYLOAD_TOO_LARGE" });
      const fits = await postChunked(
        endpoint,
        Array.from({ length: 7 }, () => Buffer.alloc(64 * 1024, 97)),
      );
      assert.equal(fits.status, 200);
    });
  });
}

const NOT_FOUND = { error: "record not found", code: "NOT_FOUND" };

/** The status, request id and JSON body of an answer. */
async function answer(res: Response): Promise<{ status: number; requestId: string; body: unknown }> {
  return { status: res.status, requestId: res.headers.get("x-request-id") ?? "", body: await res.json() };
}

for (const dialect of DIALECTS) {
  describe(`sources and workflows answer the same way [${dialect}]`, () => {
    let app: TestApp;
    /** Per kind: a queued target's URL, how to switch it off, and a responding target that throws. */
    const kinds: Array<{ name: string; prefix: string; url: string; deactivate: () => Promise<void>; failing: string }> = [];
    before(async () => {
      app = await startTestApp(dialect);
      const account = await app.newAccount();
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const failingSource = await createSource(account.api, { component_code: fixtureCode("http-respond.mjs") });
      kinds.push({
        name: "source",
        prefix: "/e/",
        url: source.configured_props.http.endpoint_url,
        deactivate: async () =>
          assert.equal((await account.api.put(`/sources/${source.id}`, { component_id: source.component_id, active: false })).status, 200),
        failing: `${failingSource.configured_props.http.endpoint_url}?mode=fail`,
      });
      const workflow = (await account.api.post("/workflows", { steps: [{ code: steps.EMIT_TRIGGER_EVENT }] })).body.data;
      const failingWorkflow = (
        await account.api.post("/workflows", { steps: [{ code: steps.THROWS }, { code: steps.RESPOND_WITH_QUERY }] })
      ).body.data;
      kinds.push({
        name: "workflow",
        prefix: "/w/",
        url: workflow.endpoint_url,
        deactivate: async () => assert.equal((await account.api.put(`/workflows/${workflow.id}`, { active: false })).status, 200),
        failing: failingWorkflow.endpoint_url,
      });
    });
    after(async () => app.close());

    it("an unknown key is a JSON 404 with a request id", async () => {
      for (const kind of kinds) {
        const res = await answer(await fetch(`${app.origin}${kind.prefix}no_such_key`, { method: "POST" }));
        assert.equal(res.status, 404, kind.name);
        assert.match(res.requestId, /^req_\w{12}$/, kind.name);
        assert.deepEqual(res.body, NOT_FOUND, kind.name);
      }
    });

    it("a body over 512 KB is a JSON 413 before the target is looked up", async () => {
      for (const kind of kinds) {
        for (const target of [kind.url, `${app.origin}${kind.prefix}no_such_key`]) {
          const res = await answer(
            await fetch(target, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: Buffer.alloc(512 * 1024 + 1, 97),
            }),
          );
          assert.equal(res.status, 413, `${kind.name} ${target}`);
          assert.match(res.requestId, /^req_/);
          assert.deepEqual(res.body, { error: "request body is too large", code: "PAYLOAD_TOO_LARGE" }, kind.name);
        }
      }
    });

    it("malformed JSON is accepted as text: the same 200", async () => {
      for (const kind of kinds) {
        const res = await answer(
          await fetch(kind.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" }),
        );
        assert.equal(res.status, 200, kind.name);
        assert.match(res.requestId, /^req_/);
        assert.deepEqual(res.body, { status: "accepted" }, kind.name);
      }
    });

    it("code that throws before responding is a JSON 500 naming the failure's kind", async () => {
      for (const kind of kinds) {
        const res = await answer(await fetch(kind.failing, { method: "POST" }));
        assert.equal(res.status, 500, kind.name);
        assert.match(res.requestId, /^req_/);
        const body = res.body as { error: unknown; code: unknown };
        assert.equal(typeof body.error, "string", kind.name);
        assert.equal(body.code, "ERROR", kind.name);
      }
    });

    it("an inactive target is the same JSON 404 as an unknown key", async () => {
      for (const kind of kinds) {
        await kind.deactivate();
        const res = await answer(await fetch(kind.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }));
        assert.equal(res.status, 404, kind.name);
        assert.match(res.requestId, /^req_/);
        assert.deepEqual(res.body, NOT_FOUND, kind.name);
      }
    });
  });
}
