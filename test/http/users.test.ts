import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { ADMIN_TOKEN, startTestApp, type TestApp } from "../helpers/test-app.js";
import { request } from "../helpers/http-client.js";

for (const dialect of DIALECTS) {
  describe(`users and API keys [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => app.close());

    it("GET /users/me shows exactly the free-plan fields, with a masked key", async () => {
      const account = await app.newAccount({ plan: "free" });
      const res = await account.api.get("/users/me");
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body.data).sort(), [
        "api_key",
        "daily_compute_time_quota",
        "daily_compute_time_used",
        "daily_invocations_quota",
        "daily_invocations_used",
        "email",
        "id",
        "storage_quota_bytes",
        "storage_used_bytes",
        "username",
      ]);
      const user = res.body.data;
      assert.match(user.id, /^u_/);
      assert.equal(user.username, account.username);
      assert.equal(user.email, account.email);
      assert.notEqual(user.api_key, account.apiKey);
      assert.ok(user.api_key.endsWith(account.apiKey.slice(-4)));
      assert.ok(user.api_key.includes("****"));
      for (const field of ["daily_compute_time_quota", "daily_compute_time_used", "daily_invocations_quota", "daily_invocations_used"]) {
        assert.ok(Number.isInteger(user[field]), field);
      }
      assert.equal(user.daily_invocations_used, 0);
      assert.equal(user.daily_invocations_quota, app.config.freeDailyInvocations);
    });

    it("GET /users/me shows exactly the paid-plan fields", async () => {
      const account = await app.newAccount({ plan: "paid" });
      const res = await account.api.get("/users/me");
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body.data).sort(), [
        "billing_period_end_ts",
        "billing_period_invocations",
        "billing_period_start_ts",
        "email",
        "id",
        "storage_quota_bytes",
        "storage_used_bytes",
        "username",
      ]);
      const { billing_period_start_ts: start, billing_period_end_ts: end } = res.body.data;
      const now = Date.now() / 1000;
      assert.ok(start <= now && now < end, "now lies inside the billing period");
      assert.equal(res.body.data.billing_period_invocations, 0);
    });

    it("rejects missing, malformed and unknown keys with a JSON 401", async () => {
      for (const headers of [
        {} as Record<string, string>,
        { authorization: "Bearer" },
        { authorization: "Basic abc" },
        { authorization: `Bearer sk_sluice_${"x".repeat(40)}` },
      ]) {
        const res = await request(app.baseUrl, "GET", "/users/me", { headers });
        assert.equal(res.status, 401);
        assert.equal(typeof res.body.error, "string");
      }
    });

    it("admin API: needs the admin token, validates input, refuses a taken username", async () => {
      const noToken = await request(app.baseUrl, "POST", "/admin/users", { json: { username: "x1", email: "x@y.z" } });
      assert.equal(noToken.status, 401);
      const wrong = await request(app.baseUrl, "POST", "/admin/users", { key: "nope", json: { username: "x1", email: "x@y.z" } });
      assert.equal(wrong.status, 401);
      const bad = await request(app.baseUrl, "POST", "/admin/users", { key: ADMIN_TOKEN, json: { username: "x1", email: "not-an-email" } });
      assert.equal(bad.status, 400);
      const badPlan = await request(app.baseUrl, "POST", "/admin/users", {
        key: ADMIN_TOKEN,
        json: { username: "x1", email: "x@y.z", plan: "gold" },
      });
      assert.equal(badPlan.status, 400);
      const ok = await request(app.baseUrl, "POST", "/admin/users", { key: ADMIN_TOKEN, json: { username: "dupe", email: "x@y.z" } });
      assert.equal(ok.status, 200);
      assert.match(ok.body.data.api_key, /^sk_sluice_[A-Za-z0-9]{40}$/);
      const again = await request(app.baseUrl, "POST", "/admin/users", { key: ADMIN_TOKEN, json: { username: "dupe", email: "x@y.z" } });
      assert.equal(again.status, 409);
      assert.equal(typeof again.body.error, "string");
    });

    it("an API key does not work as the admin token", async () => {
      const account = await app.newAccount();
      const res = await request(app.baseUrl, "POST", "/admin/users", { key: account.apiKey, json: { username: "x2", email: "x@y.z" } });
      assert.equal(res.status, 401);
    });

    it("serves /healthz, the OpenAPI document and the docs page", async () => {
      const health = await request(app.origin, "GET", "/healthz");
      // The mode user code runs in: bwrap where bubblewrap works here, else none.
      assert.deepEqual(health.body, { status: "ok", sandbox: app.sluice.services.runner.sandbox });
      assert.ok(["bwrap", "none"].includes(health.body.sandbox));
      const openapi = await request(app.baseUrl, "GET", "/openapi.json");
      assert.equal(openapi.status, 200);
      assert.ok(openapi.body.openapi.startsWith("3."));
      assert.ok(openapi.body.paths["/v1/users/me"]);
      assert.ok(openapi.body.paths["/v1/webhooks"]);
      const docs = await fetch(`${app.origin}/docs/`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger/i);
    });

    it("every response carries a request id", async () => {
      const res = await request(app.origin, "GET", "/healthz");
      assert.match(res.headers.get("x-request-id") ?? "", /^req_/);
    });
  });
}
