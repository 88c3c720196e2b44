// Bad input is always a JSON 4xx with a string `error` — never a 5xx, a hang or a crash —
// and on PostgreSQL exactly as on SQLite.
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import Fastify from "fastify";
import { installErrorHandling } from "../../src/http/error-handler.js";
import { ServiceError } from "../../src/lib/errors.js";
import { DIALECTS } from "../helpers/dialects.js";
import { request, type RequestOptions, type TestResponse } from "../helpers/http-client.js";
import { ADMIN_TOKEN, startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

interface Case {
  name: string;
  method: string;
  path: string;
  options?: RequestOptions;
  /** The exact status when it matters; any 4xx otherwise. */
  status?: number;
  admin?: boolean;
}

const JSON_HEADERS = { "content-type": "application/json" };
const raw = (body: string | Buffer, headers: Record<string, string> = JSON_HEADERS): RequestOptions => ({ raw: body, headers });
const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

function cases(hook: string): Case[] {
  return [
    // wrong types
    { name: "url is a number", method: "POST", path: "/webhooks", options: { json: { url: 5 } }, status: 400 },
    { name: "name is an array", method: "POST", path: "/webhooks", options: { json: { url: "https://e.test", name: ["a"] } }, status: 400 },
    { name: "active is a string", method: "PUT", path: `/webhooks/${hook}`, options: { json: { active: "yes" } }, status: 400 },
    { name: "active is a number", method: "PUT", path: `/webhooks/${hook}`, options: { json: { active: 1 } }, status: 400 },
    {
      name: "active in the query is not a boolean",
      method: "PUT",
      path: `/webhooks/${hook}`,
      options: { query: { active: "maybe" } },
      status: 400,
    },
    {
      name: "emitter_id is an object",
      method: "POST",
      path: "/subscriptions",
      options: { json: { emitter_id: { a: 1 }, listener_id: hook } },
      status: 400,
    },
    {
      name: "admin: username is a number",
      method: "POST",
      path: "/admin/users",
      options: { json: { username: 5, email: "a@b.c" } },
      status: 400,
      admin: true,
    },
    {
      name: "admin: a registry package name is a number",
      method: "POST",
      path: "/admin/registry/packages",
      options: { json: { name: 5 } },
      status: 400,
      admin: true,
    },
    {
      name: "admin: a registry package name is a URL",
      method: "POST",
      path: "/admin/registry/packages",
      options: { json: { name: "https://example.test/x.tgz" } },
      status: 400,
      admin: true,
    },
    {
      name: "admin: a registry package with an unknown field",
      method: "POST",
      path: "/admin/registry/packages",
      options: { json: { name: "left-pad", registry: "https://example.test/" } },
      status: 400,
      admin: true,
    },
    {
      name: "admin: plan is unknown",
      method: "POST",
      path: "/admin/users",
      options: { json: { username: "ok", email: "a@b.c", plan: "gold" } },
      status: 400,
      admin: true,
    },
    // huge or odd numbers
    { name: "limit=1e100", method: "GET", path: "/users/me/webhooks", options: { query: { limit: "1e100" } }, status: 400 },
    {
      name: "limit=99999999999999999999999",
      method: "GET",
      path: "/users/me/webhooks",
      options: { query: { limit: "99999999999999999999999" } },
      status: 400,
    },
    { name: "limit=-0.5", method: "GET", path: "/users/me/webhooks", options: { query: { limit: "-0.5" } }, status: 400 },
    { name: "limit=NaN", method: "GET", path: "/users/me/webhooks", options: { query: { limit: "NaN" } }, status: 400 },
    { name: "limit=Infinity", method: "GET", path: "/users/me/webhooks", options: { query: { limit: "Infinity" } }, status: 400 },
    { name: "limit twice", method: "GET", path: "/users/me/webhooks?limit=1&limit=2", status: 400 },
    { name: "url twice", method: "POST", path: "/webhooks?url=https://a.test&url=https://b.test", status: 400 },
    { name: "active 1e400 (Infinity) in JSON", method: "PUT", path: `/webhooks/${hook}`, options: raw('{"active": 1e400}'), status: 400 },
    {
      name: "a 3 KB url",
      method: "POST",
      path: "/webhooks",
      options: { query: { url: `https://e.test/${"a".repeat(3000)}` } },
      status: 400,
    },
    {
      name: "a 1 MB name",
      method: "POST",
      path: "/webhooks",
      options: { json: { url: "https://e.test", name: "n".repeat(1024 * 1024) } },
      status: 400,
    },
    {
      name: "a 600-character cursor",
      method: "GET",
      path: "/users/me/webhooks",
      options: { query: { after: "c".repeat(600) } },
      status: 400,
    },
    { name: "a 300-character id", method: "GET", path: `/webhooks/wh_${"x".repeat(300)}` },
    // bodies too large
    { name: "a 10 MB JSON body", method: "POST", path: "/webhooks", options: raw(Buffer.alloc(10 * 1024 * 1024, "x")), status: 413 },
    {
      name: "a 10 MB JSON body to the admin API",
      method: "POST",
      path: "/admin/users",
      options: raw(`{"username":"${"u".repeat(10 * 1024 * 1024)}"}`),
      status: 413,
      admin: true,
    },
    // malformed JSON
    { name: "unterminated object", method: "POST", path: "/webhooks", options: raw("{"), status: 400 },
    { name: "missing value", method: "POST", path: "/webhooks", options: raw('{"url":}'), status: 400 },
    { name: "trailing garbage", method: "POST", path: "/webhooks", options: raw('{"url":"https://e.test"} x'), status: 400 },
    { name: "single quotes", method: "POST", path: "/webhooks", options: raw("{'url':'https://e.test'}"), status: 400 },
    {
      name: "invalid UTF-8",
      method: "POST",
      path: "/webhooks",
      options: raw(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
      status: 400,
    },
    {
      name: "deeply nested arrays",
      method: "POST",
      path: "/webhooks",
      options: raw(`{"url":"https://e.test","name":${deep(100_000)}}`),
      status: 400,
    },
    { name: "malformed JSON on a DELETE", method: "DELETE", path: "/subscriptions", options: raw("{nope"), status: 400 },
    { name: "malformed JSON to the admin API", method: "POST", path: "/admin/users", options: raw("{nope"), status: 400, admin: true },
    // unknown fields
    { name: "unknown body field", method: "POST", path: "/webhooks", options: { json: { url: "https://e.test", bogus: 1 } }, status: 400 },
    { name: "unknown field on PUT", method: "PUT", path: `/webhooks/${hook}`, options: { json: { user_id: "u_someone" } }, status: 400 },
    {
      name: "unknown field in a subscription body",
      method: "POST",
      path: "/subscriptions",
      options: { json: { emitter_id: "dc_*", listener_id: hook, extra: true } },
      status: 400,
    },
    {
      name: "admin: unknown field",
      method: "POST",
      path: "/admin/users",
      options: { json: { username: "ok2", email: "a@b.c", admin: true } },
      status: 400,
      admin: true,
    },
    {
      name: "__proto__ is not a field",
      method: "PUT",
      path: `/webhooks/${hook}`,
      options: raw('{"__proto__":{"active":false},"constructor":{"x":1},"bogus":1}'),
      status: 400,
    },
    // arrays and scalars where objects are expected
    { name: "array body", method: "POST", path: "/webhooks", options: raw("[]"), status: 400 },
    { name: "array of objects", method: "PUT", path: `/webhooks/${hook}`, options: raw('[{"name":"x"}]'), status: 400 },
    { name: "string body", method: "POST", path: "/subscriptions", options: raw('"dc_*"'), status: 400 },
    { name: "number body", method: "POST", path: "/auto_subscriptions", options: raw("42"), status: 400 },
    { name: "null body", method: "PUT", path: `/webhooks/${hook}`, options: raw("null"), status: 400 },
    { name: "admin: array body", method: "POST", path: "/admin/users", options: raw("[]"), status: 400, admin: true },
    // content types
    { name: "text/plain body", method: "POST", path: "/webhooks", options: raw("url=https://e.test", { "content-type": "text/plain" }) },
    {
      name: "form body",
      method: "PUT",
      path: `/webhooks/${hook}`,
      options: raw("name=x", { "content-type": "application/x-www-form-urlencoded" }),
    },
    {
      name: "binary body",
      method: "POST",
      path: "/subscriptions",
      options: raw(Buffer.from([0, 1, 2]), { "content-type": "application/octet-stream" }),
    },
    // odd unicode and NUL bytes
    {
      name: "NUL in a query value",
      method: "POST",
      path: "/webhooks",
      options: { query: { url: "https://e.test", name: "a\u0000b" } },
      status: 400,
    },
    {
      name: "NUL in a JSON string",
      method: "POST",
      path: "/webhooks",
      options: { json: { url: "https://e.test", description: "x\u0000" } },
      status: 400,
    },
    { name: "NUL in a JSON key", method: "POST", path: "/webhooks", options: raw('{"url":"https://e.test","a\\u0000":1}'), status: 400 },
    { name: "NUL in a path id", method: "GET", path: "/webhooks/wh_a%00b", status: 400 },
    {
      name: "NUL in a subscription id",
      method: "DELETE",
      path: "/subscriptions",
      options: { query: { emitter_id: "dc_*", listener_id: "wh_\u0000", event_name: "" } },
      status: 400,
    },
    {
      name: "NUL in a cursor",
      method: "GET",
      path: "/users/me/webhooks",
      options: { query: { after: Buffer.from('[1,"wh_\\u0000"]').toString("base64url") } },
      status: 400,
    },
    {
      name: "NUL in the admin API",
      method: "POST",
      path: "/admin/users",
      options: { json: { username: "nul", email: "a\u0000@b.c" } },
      status: 400,
      admin: true,
    },
    {
      name: "NUL in a registry package name",
      method: "POST",
      path: "/admin/registry/packages",
      options: { json: { name: "left\u0000pad" } },
      status: 400,
      admin: true,
    },
    { name: "NUL in a URL host", method: "POST", path: "/webhooks", options: { query: { url: "https://e\u0000.test/" } }, status: 400 },
    { name: "unicode id", method: "GET", path: `/webhooks/${encodeURIComponent("wh_ünïcødé🙂")}`, status: 404 },
    {
      name: "unicode listener",
      method: "POST",
      path: "/subscriptions",
      options: { query: { emitter_id: "dc_*", listener_id: "wh_🙂" } },
      status: 404,
    },
    {
      name: "right-to-left and zero-width in a url",
      method: "POST",
      path: "/webhooks",
      options: { query: { url: "https://\u202eexample\u200b.test/" } },
      status: 400,
    },
    { name: "broken percent-encoding in the path", method: "GET", path: "/webhooks/wh_%E0%A4%A", status: 400 },
    {
      name: "control characters in event_name",
      method: "POST",
      path: "/subscriptions",
      options: { query: { emitter_id: "dc_*", listener_id: hook, event_name: "a\u0007b" } },
      status: 400,
    },
    {
      name: "a glob as listener",
      method: "POST",
      path: "/subscriptions",
      options: { query: { emitter_id: "p_*", listener_id: "dc_*" } },
      status: 400,
    },
    { name: "an empty id", method: "POST", path: "/subscriptions", options: { query: { emitter_id: "", listener_id: hook } }, status: 400 },
  ];
}

function assertJson4xx(res: TestResponse, what: string, status?: number): void {
  assert.ok(res.status >= 400 && res.status < 500, `${what}: expected a 4xx, got ${res.status} ${res.text.slice(0, 200)}`);
  if (status !== undefined) assert.equal(res.status, status, `${what}: ${res.text.slice(0, 200)}`);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/, `${what}: content-type`);
  assert.equal(typeof res.body?.error, "string", `${what}: JSON error body, got ${res.text.slice(0, 200)}`);
}

/** Sends a request whose URL is `size` bytes long, which fetch would refuse to build. */
function longUrlRequest(origin: string, path: string, key: string): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(origin);
    const req = httpRequest(
      { host: target.hostname, port: target.port, method: "GET", path, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: any;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body, text });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("error mapping", () => {
  it("maps each ServiceError code to its status, with a JSON error; faults become an opaque 500", async () => {
    const app = Fastify({ logger: false });
    installErrorHandling(app);
    const thrown: Record<string, () => Error> = {
      quota: () => new ServiceError("LIMIT_EXCEEDED", "daily quota used up"),
      soon: () => new ServiceError("LIMIT_EXCEEDED", "slow down", { retryAfterSeconds: 0.2 }),
      later: () => new ServiceError("LIMIT_EXCEEDED", "tomorrow", { retryAfterSeconds: 3600 }),
      big: () => new ServiceError("PAYLOAD_TOO_LARGE", "too big"),
      taken: () => new ServiceError("CONFLICT", "taken"),
      fault: () => new Error("secret internal detail"),
    };
    for (const [name, make] of Object.entries(thrown)) {
      app.get(`/${name}`, async () => {
        throw make();
      });
    }
    const get = (name: string) => app.inject({ method: "GET", url: `/${name}` });
    const quota = await get("quota");
    assert.equal(quota.statusCode, 429);
    assert.equal(quota.headers["retry-after"], "60");
    assert.deepEqual(quota.json(), { error: "daily quota used up", code: "LIMIT_EXCEEDED" });
    assert.equal((await get("soon")).headers["retry-after"], "1");
    assert.equal((await get("later")).headers["retry-after"], "3600");
    assert.equal((await get("big")).statusCode, 413);
    assert.equal((await get("taken")).statusCode, 409);
    const fault = await get("fault");
    assert.equal(fault.statusCode, 500);
    assert.equal(fault.json().error, "internal server error");
    assert.ok(!fault.body.includes("secret internal detail"), "faults are opaque");
    await app.close();
  });
});

for (const dialect of DIALECTS) {
  describe(`bad input [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let hook: string;
    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount();
      hook = (await account.api.post("/webhooks", undefined, { url: "https://example.test/bad-input", name: "unchanged" })).body.data.id;
    });
    after(async () => app.close());

    it("answers every bad request with a JSON 4xx and a string error", async () => {
      for (const c of cases(hook)) {
        const key = c.admin ? ADMIN_TOKEN : account.apiKey;
        const res = await request(app.baseUrl, c.method, c.path, { ...c.options, key });
        assertJson4xx(res, `${c.name} (${c.method} ${c.path.slice(0, 60)})`, c.status);
      }
    });

    it("left the data alone, and the server still serves", async () => {
      const res = await account.api.get(`/webhooks/${hook}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.name, "unchanged");
      assert.equal(res.body.data.active, true);
      assert.equal(res.body.data.description, null);
      const health = await request(app.origin, "GET", "/healthz");
      assert.equal(health.status, 200);
    });

    it("odd but valid unicode is stored and returned intact", async () => {
      const name = "名前 🙂 \u202eRTL\u202c zero\u200bwidth é";
      const res = await account.api.post("/webhooks", { url: "https://example.test/ünï", name, description: "\ud83d\ude00" });
      assert.equal(res.status, 200, res.text);
      const read = await account.api.get(`/webhooks/${res.body.data.id}`);
      assert.equal(read.body.data.name, name);
      assert.equal(read.body.data.description, "😀");
      assert.equal(read.body.data.url, "https://example.test/%C3%BCn%C3%AF");
      // A lone surrogate is not valid unicode: stored as U+FFFD or refused, but never a 5xx.
      const lone = await account.api.call("POST", "/webhooks", {
        raw: '{"url":"https://example.test/","name":"a\\ud800b"}',
        headers: JSON_HEADERS,
      });
      assert.ok(lone.status === 200 || (lone.status >= 400 && lone.status < 500), lone.text);
    });

    it("a 64 KB URL is a JSON 4xx", async () => {
      const res = await longUrlRequest(app.origin, `/v1/users/me/webhooks?x=${"a".repeat(64 * 1024)}`, account.apiKey);
      assertJson4xx(res, "64 KB URL");
    });

    it("unknown paths and methods are a JSON 404", async () => {
      for (const [method, path] of [
        ["GET", "/nope"],
        ["PATCH", "/webhooks"],
        ["GET", "/v2/users/me"],
      ] as const) {
        const res = await request(app.baseUrl, method, path, { key: account.apiKey });
        assertJson4xx(res, `${method} ${path}`, 404);
      }
    });

    it("429 past the rate limit carries Retry-After and a JSON error", async () => {
      const limited = await startTestApp(dialect, { apiRateLimitPerMinute: 3 });
      try {
        const user = await limited.newAccount();
        const statuses: number[] = [];
        let last: TestResponse | undefined;
        for (let i = 0; i < 5; i++) {
          last = await user.api.get("/users/me");
          statuses.push(last.status);
        }
        assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
        assertJson4xx(last as TestResponse, "rate limited", 429);
        const retryAfter = Number(last?.headers.get("retry-after"));
        assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, `retry-after ${retryAfter}`);
        // The limit is per key: another account is not affected.
        const other = await limited.newAccount();
        assert.equal((await other.api.get("/users/me")).status, 200);
      } finally {
        await limited.close();
      }
    });
  });
}
