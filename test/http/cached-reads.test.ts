// Event-summary pages the page cache holds, answered in front of Fastify (src/http/cached-reads.ts):
// the answer is the one Fastify's route gives, and every request the fast answer cannot take
// exactly is left to Fastify.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createAccountRateLimit, type AccountRateLimit } from "../../src/http/account-rate-limit.js";
import { createAuthFailures, type AuthFailures } from "../../src/http/auth-failures.js";
import { cachedReads } from "../../src/http/cached-reads.js";
import type { FrontHandler } from "../../src/http/http-server.js";
import { createSource, fixtureCode, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const emitsOf = (values: unknown[]) => ({ emits: values.map((event) => ({ event })) });
/** What tells one answer from another of the same page: the request's own id and the clock. */
const PER_REQUEST = new Set(["x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset", "date"]);

/** The fast answer alone on a loopback server: 599 where it leaves the request to Fastify; `served` says which it took. */
async function serveAlone(serve: FrontHandler) {
  const served: boolean[] = [];
  const server = createServer((req, res) => {
    const took = serve(req, res);
    served.push(took);
    if (!took) res.writeHead(599).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const dialect of DIALECTS) {
  describe(`cached event-summary reads [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let source: { id: string; configured_props: { http: { endpoint_url: string } } };
    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount();
      source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      await post(source.configured_props.http.endpoint_url, emitsOf([{ n: 0 }, { n: 1 }, { n: 2 }]));
      await waitForEvents(account.api, source.id, 3);
    });
    after(async () => app?.close());

    const read = (query = "?limit=2", key = account.apiKey) =>
      fetch(`${app.baseUrl}/sources/${source.id}/event_summaries${query}`, { headers: { authorization: `Bearer ${key}` } });

    it("a page read again is the same answer, headers and all, and both reads are counted", async () => {
      const counted = async () =>
        (await app.sluice.services.ctx.metrics.registry.getSingleMetric("sluice_http_requests_total")!.get()).values
          .filter((v) => v.labels.route === "/v1/sources/:id/event_summaries" && v.labels.status_class === "2xx")
          .reduce((sum, v) => sum + v.value, 0);
      const before = await counted();
      const first = await read();
      const second = await read();
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.deepEqual(await second.json(), await first.json());
      const kept = (res: Response) => [...res.headers].filter(([name]) => !PER_REQUEST.has(name));
      assert.deepEqual(kept(second), kept(first));
      for (const name of PER_REQUEST) assert.ok(second.headers.get(name), `${name} is sent`);
      assert.notEqual(second.headers.get("x-request-id"), first.headers.get("x-request-id"));
      assert.equal(Number(second.headers.get("x-ratelimit-remaining")), Number(first.headers.get("x-ratelimit-remaining")) - 1);
      assert.equal(await counted(), before + 2);
    });

    describe("the fast answer alone", () => {
      let lane: Awaited<ReturnType<typeof serveAlone>>;
      const laneOf = (failures: AuthFailures, rateLimit: AccountRateLimit) =>
        serveAlone(cachedReads({ ctx: app.sluice.services.ctx, failures, rateLimit }));
      const pageUrl = (origin: string, query: string) => `${origin}/v1/sources/${source.id}/event_summaries${query}`;
      before(async () => {
        lane = await laneOf(createAuthFailures(10), createAccountRateLimit(1_000));
      });
      after(() => lane.close());

      const viaLane = (query: string, init: RequestInit = {}, key = account.apiKey) =>
        fetch(pageUrl(lane.origin, query), { ...init, headers: { authorization: `Bearer ${key}` } });

      it("answers only a plain read of a page in the cache (SQLite); on PostgreSQL nothing is cached", async () => {
        const filled = await (await read("?limit=3")).json();
        const hit = await viaLane("?limit=3");
        if (dialect !== "sqlite") {
          assert.equal(hit.status, 599, "PostgreSQL has no page cache: every read goes to Fastify");
          return;
        }
        assert.equal(hit.status, 200);
        assert.deepEqual(await hit.json(), filled);
        assert.equal(hit.headers.get("x-ratelimit-limit"), "1000");
        assert.equal(hit.headers.get("x-ratelimit-remaining"), "999");

        assert.equal((await viaLane("?limit=4")).status, 599, "a page not read yet");
        await read(""); // fills the default page
        assert.equal((await viaLane("")).status, 200, "no query: limit 10");
        for (const query of ["?limit=3&expand=event", "?limit=03", "?limit=101", "?limit=0", "?limit=3&", "/"])
          assert.equal((await viaLane(query)).status, 599, `left to Fastify: ${query}`);
        assert.equal((await viaLane("?limit=3", { method: "POST" })).status, 599);
        assert.equal((await viaLane("?limit=3", {}, `sk_sluice_${"Z".repeat(40)}`)).status, 599, "a key not seen moments ago");
        const other = await app.newAccount();
        await other.api.get("/users/me"); // its key is now remembered too
        assert.equal((await viaLane("?limit=3", {}, other.apiKey)).status, 599, "another account's read of this page");
      });

      // The page cache is SQLite's (ADR 0012): on PostgreSQL the test above shows nothing is answered.
      if (dialect !== "sqlite") return;

      it("leaves reads to Fastify while failed authentications are on record, and past the rate limit", async () => {
        await read("?limit=3");
        const recorded = createAuthFailures(10);
        recorded.record("192.0.2.1", app.sluice.services.ctx.clock.now());
        const withFailure = await laneOf(recorded, createAccountRateLimit(1_000));
        const tight = await laneOf(createAuthFailures(10), createAccountRateLimit(2));
        const readThrough = async (origin: string) =>
          (await fetch(pageUrl(origin, "?limit=3"), { headers: { authorization: `Bearer ${account.apiKey}` } })).arrayBuffer();
        try {
          await readThrough(withFailure.origin);
          assert.deepEqual(withFailure.served, [false], "a failure recorded within the minute: Fastify checks the address");
          for (let i = 0; i < 3; i++) await readThrough(tight.origin);
          assert.deepEqual(tight.served, [true, true, false], "the third is Fastify's, which counts it and answers the 429");
        } finally {
          await Promise.all([withFailure.close(), tight.close()]);
        }
      });

      it("a page is not answered once the source stored another event", async () => {
        await read("?limit=3");
        assert.equal((await viaLane("?limit=3")).status, 200);
        await post(source.configured_props.http.endpoint_url, emitsOf([{ n: 3 }]));
        await waitForEvents(account.api, source.id, 4);
        assert.equal((await viaLane("?limit=3")).status, 599);
        const fresh = await (await read("?limit=3")).json();
        assert.equal(fresh.data[0].event.n, 3);
        assert.deepEqual(await (await viaLane("?limit=3")).json(), fresh);
      });
    });
  });
}
