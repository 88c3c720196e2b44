// Bounded storage: streams per emitter, the size of events the service builds, and the
// account's storage quota — each refusal a 429 or an $errors entry naming the limit, nothing
// stored earlier lost.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { appendEvents } from "../../src/domain/events/append-events.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitFor } from "../helpers/wait-for.js";

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const named = (name: string, event: unknown) => ({ event, meta: { name } });

for (const dialect of DIALECTS) {
  describe(`storage limits [${dialect}]`, () => {
    describe("streams per emitter and event size", () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { maxStreamsPerEmitter: 2, maxEventBytes: 4096 });
      });
      after(async () => app?.close());

      it("an emit to a new stream past SLUICE_MAX_STREAMS_PER_EMITTER becomes an $errors entry; the default stream, $logs and known streams go on", async () => {
        const account = await app.newAccount();
        const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
        const url = source.configured_props.http.endpoint_url;
        // The fixture emits on "counter" every run: with "a" the emitter has its two named streams.
        assert.equal((await post(url, { emits: [named("a", { a: 1 })] })).status, 200);
        await waitForEvents(account.api, source.id, 1, { event_name: "a" });
        assert.equal(
          (
            await post(url, {
              emits: [named("b", { b: 1 }), named("a", { a: 2 }), { event: { plain: 1 } }],
              logs: [{ level: "log", message: "still logged" }],
            })
          ).status,
          200,
        );
        const [error] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors", expand: "event" });
        assert.equal(error.event.error.name, "TooManyStreams");
        assert.match(error.event.error.message, /SLUICE_MAX_STREAMS_PER_EMITTER/);
        assert.match(error.event.error.message, /"b"/);
        assert.deepEqual(error.event.original_event, { stream: "b", event: { b: 1 } });
        assert.equal((await summaries(account.api, source.id, { event_name: "b" })).length, 0);
        assert.equal((await summaries(account.api, source.id, { event_name: "a" })).length, 2, "a known stream still takes events");
        await waitForEvents(account.api, source.id, 2, { event_name: "counter" });
        assert.deepEqual(
          (await summaries(account.api, source.id)).map((s) => s.event),
          [{ plain: 1 }],
        );
        assert.equal((await summaries(account.api, source.id, { event_name: "$logs" }))[0].event.message, "still logged");
      });

      it("an $errors event the service builds past SLUICE_MAX_EVENT_BYTES is stored as a short entry naming the limit", async () => {
        const account = await app.newAccount();
        const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
        // The $errors entry of a failed run holds the request (the original event): 10 KB here.
        assert.equal((await post(source.configured_props.http.endpoint_url, { throw: "boom", pad: "x".repeat(10_000) })).status, 200);
        const [error] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors", expand: "event" });
        assert.equal(error.event.error.name, "EventTooLarge");
        assert.match(error.event.error.message, /SLUICE_MAX_EVENT_BYTES \(4096\)/);
        assert.equal(error.event.original_event.event.$truncated, true);
        assert.ok(JSON.stringify(error.event).length < 4096);
      });
    });

    describe("storage quota per account", () => {
      let app: TestApp;
      const QUOTA = 8_000;
      before(async () => {
        app = await startTestApp(dialect, { accountStorageBytes: QUOTA });
      });
      after(async () => app?.close());

      it("GET /users/me shows usage and quota; past the quota HTTP endpoints answer 429 and emits become $errors entries; nothing stored is lost", async () => {
        const account = await app.newAccount();
        const neighbour = await app.newAccount();
        const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
        const url = source.configured_props.http.endpoint_url;
        const fresh = (await account.api.get("/users/me")).body.data;
        assert.equal(fresh.storage_quota_bytes, QUOTA);
        assert.equal(fresh.storage_used_bytes, 0);

        const pad = "p".repeat(1_000);
        let accepted = 0;
        // Every accepted request's run ends with its event stored, or (when the endpoint's view
        // of the usage was a moment old) with an $errors entry naming the quota.
        const outcomes = async () =>
          (await summaries(account.api, source.id)).length + (await summaries(account.api, source.id, { event_name: "$errors" })).length;
        const refused = await waitFor(
          async () => {
            const res = await post(url, { emits: [{ event: { n: accepted, pad } }] });
            if (res.status === 429) return res;
            assert.equal(res.status, 200);
            accepted += 1;
            await waitFor(async () => (await outcomes()) >= accepted || undefined, { what: `run ${accepted}`, timeoutMs: 20_000 });
            return undefined;
          },
          { what: "the storage quota to refuse a request", timeoutMs: 20_000 },
        );
        const body = await refused.json();
        assert.equal(body.code, "LIMIT_EXCEEDED");
        assert.match(body.error, /storage quota of 8000 bytes \(SLUICE_ACCOUNT_STORAGE_MB\)/);
        assert.ok(Number(refused.headers.get("retry-after")) >= 1);

        const me = (await account.api.get("/users/me")).body.data;
        assert.ok(me.storage_used_bytes >= QUOTA, `${me.storage_used_bytes} bytes used`);
        const kept = (await summaries(account.api, source.id)).length;
        assert.ok(kept >= 5, `${kept} events stored before the quota`);
        for (const entry of await summaries(account.api, source.id, { event_name: "$errors" }))
          assert.equal(entry.event.error.name, "StorageQuotaExceeded");

        // An emit that did not come through an HTTP endpoint (a delivery, a timer) is refused in storage.
        const ctx = app.sluice.services.ctx;
        const stored = await ctx.db.transaction().execute((tx) =>
          appendEvents(ctx, tx, {
            userId: account.id,
            emitterId: source.id,
            nowMs: ctx.clock.now(),
            events: [{ stream: "", event: { late: true } }],
            limits: ctx.eventLimits,
          }),
        );
        assert.equal(stored.length, 1);
        assert.equal(stored[0]!.stream, "$errors");
        assert.match(JSON.stringify(stored[0]!.event), /StorageQuotaExceeded/);
        assert.equal((await summaries(account.api, source.id)).length, kept, "nothing stored earlier is lost");

        const other = await createSource(neighbour.api, { component_code: fixtureCode("http-scripted.cjs") });
        assert.equal(
          (await post(other.configured_props.http.endpoint_url, { emits: [{ event: { mine: 1 } }] })).status,
          200,
          "other accounts have their own quota",
        );

        // Deleting events gives the room back.
        assert.equal((await account.api.call("DELETE", `/sources/${source.id}/events`)).status, 202);
        await waitFor(async () => (await post(url, { emits: [{ event: { again: 1 } }] })).status === 200 || undefined, {
          what: "the quota to allow events again",
          timeoutMs: 20_000,
        });
      });
    });
  });
}
