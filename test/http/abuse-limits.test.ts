// Limits against abuse of the API: the /v1 rate limit counts per account (not per bearer
// string), failed authentications are limited per client address, live tails per account.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FakeClock } from "../../src/lib/clock.js";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { ADMIN_TOKEN, startTestApp, type TestApp } from "../helpers/test-app.js";

const UNKNOWN_KEY = `sk_sluice_${"Z".repeat(40)}`;

for (const dialect of DIALECTS) {
  describe(`abuse limits [${dialect}]`, () => {
    describe("rate limit per account", () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { apiRateLimitPerMinute: 4 });
      });
      after(async () => app?.close());

      it("every key of an account draws on one bucket; another account has its own", async () => {
        const account = await app.newAccount();
        const second = account.api.withKey((await account.api.post("/users/me/api_keys", {})).body.data.api_key);
        for (let i = 0; i < 3; i++) assert.equal((await account.api.get("/users/me")).status, 200);
        const limited = await second.get("/users/me");
        assert.equal(limited.status, 429, "the account's other key shares the bucket");
        assert.equal(limited.body.code, "LIMIT_EXCEEDED");
        assert.ok(Number(limited.headers.get("retry-after")) >= 1);
        const neighbour = await app.newAccount();
        assert.equal((await neighbour.api.get("/users/me")).status, 200);
      });
    });

    describe("rate limit windows", () => {
      let app: TestApp;
      const clock = new FakeClock(Date.now());
      before(async () => {
        app = await startTestApp(dialect, { apiRateLimitPerMinute: 3 }, { clock });
      });
      after(async () => app?.close());

      it("each response says the limit, what is left and when the window ends; a minute later the account may go on", async () => {
        const account = await app.newAccount();
        const first = await account.api.get("/users/me");
        assert.equal(first.status, 200);
        assert.equal(first.headers.get("x-ratelimit-limit"), "3");
        assert.equal(first.headers.get("x-ratelimit-remaining"), "2");
        assert.equal(first.headers.get("x-ratelimit-reset"), "60");
        clock.advance(10_000);
        const second = await account.api.get("/users/me");
        assert.equal(second.headers.get("x-ratelimit-remaining"), "1");
        assert.equal(second.headers.get("x-ratelimit-reset"), "50");
        assert.equal((await account.api.get("/users/me")).headers.get("x-ratelimit-remaining"), "0");
        const limited = await account.api.get("/users/me");
        assert.equal(limited.status, 429);
        assert.equal(limited.headers.get("retry-after"), "50");
        assert.match(limited.body.error, /rate limit exceeded, retry in 50 s/);
        clock.advance(50_000);
        const again = await account.api.get("/users/me");
        assert.equal(again.status, 200, "a new window opens when the last one ended");
        assert.equal(again.headers.get("x-ratelimit-remaining"), "2");
        assert.equal(again.headers.get("x-ratelimit-reset"), "60");
      });
    });

    describe("failed authentications per client address", () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { authFailuresPerMinute: 3, trustProxy: true });
      });
      after(async () => app?.close());

      const from = (address: string) => ({ "x-forwarded-for": address });

      it("past the limit every authentication from that address gets a 429 with Retry-After, the right key too", async () => {
        const account = await app.newAccount();
        for (let i = 0; i < 3; i++) {
          const res = await request(app.baseUrl, "GET", "/users/me", { key: UNKNOWN_KEY, headers: from("203.0.113.7") });
          assert.equal(res.status, 401);
        }
        const blocked = await request(app.baseUrl, "GET", "/users/me", { key: account.apiKey, headers: from("203.0.113.7") });
        assert.equal(blocked.status, 429);
        assert.equal(blocked.body.code, "LIMIT_EXCEEDED");
        assert.match(blocked.body.error, /SLUICE_AUTH_FAILURES_PER_MINUTE=3/);
        assert.ok(Number(blocked.headers.get("retry-after")) >= 1);
        const admin = await request(app.baseUrl, "POST", "/admin/users", {
          key: ADMIN_TOKEN,
          headers: from("203.0.113.7"),
          json: { username: "blocked", email: "b@example.test" },
        });
        assert.equal(admin.status, 429, "the admin API counts the same failures");
        const elsewhere = await request(app.baseUrl, "GET", "/users/me", { key: account.apiKey, headers: from("198.51.100.2") });
        assert.equal(elsewhere.status, 200, "another address is not affected");
      });

      it("wrong admin tokens count too", async () => {
        for (let i = 0; i < 3; i++) {
          const res = await request(app.baseUrl, "POST", "/admin/users", {
            key: "x".repeat(40),
            headers: from("203.0.113.9"),
            json: { username: "nope", email: "n@example.test" },
          });
          assert.equal(res.status, 401);
        }
        const res = await request(app.baseUrl, "POST", "/admin/users", {
          key: ADMIN_TOKEN,
          headers: from("203.0.113.9"),
          json: { username: "nope", email: "n@example.test" },
        });
        assert.equal(res.status, 429);
      });
    });

    describe("live tails per account", () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { maxSsePerAccount: 2 });
      });
      after(async () => app?.close());

      it("past SLUICE_MAX_SSE_PER_ACCOUNT a tail is refused with a 429; closing one frees its slot", async () => {
        const account = await app.newAccount();
        const workflow = (await account.api.post("/workflows", { steps: [{ code: "export default { async run() {} };" }] })).body.data;
        const open = async (path: string) => {
          const controller = new AbortController();
          const res = await fetch(`${app.baseUrl}${path}`, {
            headers: { authorization: `Bearer ${account.apiKey}` },
            signal: controller.signal,
          });
          return { res, close: () => controller.abort() };
        };
        const first = await open(`/workflows/${workflow.id}/sse`);
        const second = await open(`/workflows/${workflow.id}/sse`);
        assert.equal(first.res.status, 200);
        assert.equal(second.res.status, 200);
        const third = await open(`/workflows/${workflow.id}/sse`);
        assert.equal(third.res.status, 429);
        const body = await third.res.json();
        assert.equal(body.code, "LIMIT_EXCEEDED");
        assert.match(body.error, /SLUICE_MAX_SSE_PER_ACCOUNT=2/);
        assert.ok(third.res.headers.get("retry-after"));
        const neighbour = await app.newAccount();
        const theirs = (await neighbour.api.post("/workflows", { steps: [{ code: "export default { async run() {} };" }] })).body.data;
        const neighbourTail = await fetch(`${app.baseUrl}/workflows/${theirs.id}/sse`, {
          headers: { authorization: `Bearer ${neighbour.apiKey}` },
        });
        assert.equal(neighbourTail.status, 200, "other accounts have their own slots");
        await neighbourTail.body?.cancel();

        first.close();
        let again = await open(`/workflows/${workflow.id}/sse`);
        // The server notices the closed connection a moment later.
        for (const deadline = Date.now() + 5_000; again.res.status === 429 && Date.now() < deadline;)
          again = await open(`/workflows/${workflow.id}/sse`);
        assert.equal(again.res.status, 200, "a closed tail frees its slot");
        again.close();
        second.close();
      });
    });

    describe("without SLUICE_TRUST_PROXY, X-Forwarded-For is ignored", () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { authFailuresPerMinute: 2 });
      });
      after(async () => app?.close());

      it("a client cannot escape the limit by naming other addresses", async () => {
        for (let i = 0; i < 2; i++)
          assert.equal(
            (await request(app.baseUrl, "GET", "/users/me", { key: UNKNOWN_KEY, headers: { "x-forwarded-for": `192.0.2.${i}` } })).status,
            401,
          );
        const res = await request(app.baseUrl, "GET", "/users/me", { key: UNKNOWN_KEY, headers: { "x-forwarded-for": "192.0.2.99" } });
        assert.equal(res.status, 429);
      });
    });
  });
}
