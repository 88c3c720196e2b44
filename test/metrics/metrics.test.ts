// GET /metrics: who may read it, and that its counters move when events flow and deliveries
// happen. Each instance has its own registry; a process without the api role serves it on
// SLUICE_METRICS_PORT.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { Receiver } from "../delivery/receiver.js";
import { waitFor } from "../helpers/wait-for.js";
import { createSource } from "../fixtures/components/sources/helpers.js";
import { parsePrometheusText, valueOf, type Sample } from "./prometheus-text.js";

const HTTP_SOURCE = `export default {
  name: "metered", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { console.log("got one"); this.$emit(event.body); },
};`;

async function scrape(origin: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await request(origin, "GET", "/metrics", { headers });
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  return parsePrometheusText(res.text);
}

for (const dialect of DIALECTS) {
  describe(`/metrics [${dialect}]`, () => {
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

    it("counts ingest requests, emitted events, runs, deliveries and their latency", async () => {
      const source = await createSource(account.api, { component_code: HTTP_SOURCE });
      const hook = (await account.api.post("/webhooks", undefined, { url: `${receiver.url}/metered` })).body.data;
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: source.id, listener_id: hook.id })).status, 200);
      const before = await scrape(app.origin);

      for (let n = 0; n < 3; n++) {
        const res = await fetch(source.configured_props.http.endpoint_url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ n }),
        });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
      await waitFor(() => receiver.at("/metered").length === 3, 15_000);
      let now: Sample[] = [];
      const delta = (name: string, labels: Record<string, string> = {}) => valueOf(now, name, labels) - valueOf(before, name, labels);
      // The success is counted just after the receiver answered.
      await waitFor(async () => {
        now = await scrape(app.origin);
        return delta("sluice_deliveries_total", { listener: "webhook", result: "succeeded" }) === 3;
      }, 15_000);

      assert.equal(delta("sluice_ingest_requests_total", { kind: "source", status_class: "2xx" }), 3);
      assert.equal(delta("sluice_events_emitted_total", { emitter: "source", stream: "default" }), 3);
      assert.equal(delta("sluice_events_emitted_total", { emitter: "source", stream: "$logs" }), 3);
      assert.equal(delta("sluice_delivery_latency_seconds_count", { listener: "webhook" }), 3);
      assert.ok(delta("sluice_run_duration_seconds_count", { kind: "source" }) >= 3);
      assert.ok(valueOf(now, "sluice_runner_processes") >= 1, "a runner is alive");
      assert.ok(delta("sluice_http_requests_total", { route: "/metrics", status_class: "2xx" }) >= 1);
      assert.ok(valueOf(now, "sluice_http_requests_total", { route: "/v1/sources", status_class: "2xx" }) >= 1);
      for (const state of ["running", "due", "scheduled"])
        assert.ok(
          now.some((s) => s.name === "sluice_jobs" && s.labels.state === state),
          `jobs ${state}`,
        );
      assert.ok(
        now.some((s) => s.name === "process_cpu_user_seconds_total"),
        "the Node process defaults are there",
      );
      // No label names an account, a source or a URL.
      for (const sample of now)
        for (const value of Object.values(sample.labels)) assert.doesNotMatch(value, /^(dc|p|wh|u)_|https?:/, `${sample.name} ${value}`);
    });

    it("a failing run is counted by its kind of failure", async () => {
      const source = await createSource(account.api, {
        component_code: `export default { props: { http: "$.interface.http" }, async run() { throw new Error("no"); } };`,
      });
      const before = await scrape(app.origin);
      const res = await fetch(source.configured_props.http.endpoint_url, { method: "POST", body: "{}" });
      await res.arrayBuffer();
      await waitFor(
        async () =>
          valueOf(await scrape(app.origin), "sluice_run_failures_total", { kind: "source", failure: "error" }) >
          valueOf(before, "sluice_run_failures_total", { kind: "source", failure: "error" }),
        15_000,
      );
    });

    it("without a token: loopback clients only, and not through a proxy (404 otherwise)", async () => {
      const proxied = await request(app.origin, "GET", "/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } });
      assert.equal(proxied.status, 404);
      assert.doesNotMatch(proxied.text, /sluice_/);
    });

    it("two instances in one process count apart", async () => {
      const other = await startTestApp(dialect);
      try {
        const ours = valueOf(await scrape(app.origin), "sluice_http_requests_total", { route: "/metrics" });
        const theirs = valueOf(await scrape(other.origin), "sluice_http_requests_total", { route: "/metrics" });
        assert.ok(ours >= 2, `${ours}`);
        assert.equal(theirs, 0, "the new instance has seen none of the other's scrapes");
      } finally {
        await other.close();
      }
    });
  });

  describe(`/metrics with SLUICE_METRICS_TOKEN [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { metricsToken: "scrape-me" });
    });
    after(() => app.close());

    it("requires the token, even from loopback", async () => {
      assert.equal((await request(app.origin, "GET", "/metrics")).status, 401);
      assert.equal((await request(app.origin, "GET", "/metrics", { headers: { authorization: "Bearer wrong" } })).status, 401);
      await scrape(app.origin, { authorization: "Bearer scrape-me" });
      await scrape(app.origin, { authorization: "Bearer scrape-me", "x-forwarded-for": "203.0.113.9" });
    });
  });

  describe(`/metrics of a worker on SLUICE_METRICS_PORT [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { metricsPort: 0 }, { roles: ["worker", "scheduler"] });
    });
    after(() => app.close());

    it("serves /metrics on its own port with the same rules", async () => {
      const url = app.sluice.metricsUrl;
      assert.ok(url);
      const samples = await scrape(url);
      assert.ok(samples.some((s) => s.name === "sluice_jobs"));
      assert.equal((await request(url, "GET", "/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } })).status, 404);
      assert.equal((await request(url, "GET", "/other")).status, 404);
    });
  });
}
