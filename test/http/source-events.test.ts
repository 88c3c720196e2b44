// Stored events of sources: summaries (pagination, cursors, expand, truncation, last 100),
// deletion by id range, dedupe strategies, delivery to a source, and the SSE live tail.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitFor } from "../helpers/wait-for.js";

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const emitsOf = (values: unknown[]) => ({ emits: values.map((event) => ({ event })) });

for (const dialect of DIALECTS) {
  describe(`source events [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect, { sseKeepaliveSeconds: 1 });
      account = await app.newAccount();
    });
    after(async () => app.close());

    async function sourceWithEvents(count: number) {
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      await post(source.configured_props.http.endpoint_url, emitsOf(Array.from({ length: count }, (_, n) => ({ n }))));
      const events = await waitForEvents(account.api, source.id, Math.min(count, 100));
      return { source, events };
    }

    it("pages newest first with limit, after and before cursors and page_info", async () => {
      const { source } = await sourceWithEvents(12);
      const first = await account.api.get(`/sources/${source.id}/event_summaries`);
      assert.equal(first.status, 200);
      assert.equal(first.body.data.length, 10, "default limit 10");
      assert.deepEqual(
        first.body.data.map((s: any) => s.event.n),
        [11, 10, 9, 8, 7, 6, 5, 4, 3, 2],
      );
      assert.deepEqual(first.body.page_info.total_count, 12);
      assert.deepEqual(first.body.page_info.count, 10);
      const next = await account.api.get(`/sources/${source.id}/event_summaries`, { limit: 5, after: first.body.page_info.end_cursor });
      assert.deepEqual(
        next.body.data.map((s: any) => s.event.n),
        [1, 0],
      );
      const back = await account.api.get(`/sources/${source.id}/event_summaries`, { limit: 3, before: next.body.page_info.start_cursor });
      assert.deepEqual(
        back.body.data.map((s: any) => s.event.n),
        [4, 3, 2],
      );
      const last3 = await account.api.get(`/sources/${source.id}/event_summaries`, { limit: 3 });
      assert.deepEqual(
        last3.body.data.map((s: any) => s.event.n),
        [11, 10, 9],
      );
      for (const limit of [0, 101, "x"])
        assert.equal((await account.api.get(`/sources/${source.id}/event_summaries`, { limit })).status, 400);
      assert.equal((await account.api.get(`/sources/${source.id}/event_summaries`, { after: "garbage" })).status, 400);
      assert.equal((await account.api.get("/sources/dc_unknown/event_summaries")).status, 404);
    });

    it("an empty stream of one's own source is an empty page; include/exclude apply to each summary", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const empty = await account.api.get(`/sources/${source.id}/event_summaries`);
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, { page_info: { total_count: 0, count: 0, start_cursor: "", end_cursor: "" }, data: [] });
      const stranger = await app.newAccount();
      assert.equal(
        (await stranger.api.get(`/sources/${source.id}/event_summaries`)).status,
        404,
        "another account's source, even with no events",
      );

      await post(source.configured_props.http.endpoint_url, emitsOf([{ n: 1, nested: { s: '\u00e9"\n' } }, { n: 2 }]));
      await waitForEvents(account.api, source.id, 2);
      const whole = await account.api.get(`/sources/${source.id}/event_summaries`);
      // A projection of every field takes the object path: the spliced page must read the same.
      const projected = await account.api.get(`/sources/${source.id}/event_summaries`, { include: "id,indexed_at_ms,event,metadata" });
      assert.deepEqual(whole.body, projected.body);
      assert.deepEqual(whole.body.data[1].event, { n: 1, nested: { s: '\u00e9"\n' } });
      const ids = await account.api.get(`/sources/${source.id}/event_summaries`, { include: "id" });
      assert.deepEqual(
        ids.body.data,
        whole.body.data.map((s: any) => ({ id: s.id })),
      );
      const noMetadata = await account.api.get(`/sources/${source.id}/event_summaries`, { exclude: "metadata" });
      assert.deepEqual(
        noMetadata.body.data,
        whole.body.data.map(({ metadata: _, ...rest }: any) => rest),
      );
    });

    it("a page read again is never stale (pages may be cached): new events, trimming, deletion of events and of the source", async () => {
      const { source } = await sourceWithEvents(3);
      const page = async (query: Record<string, string | number> = {}) =>
        (await account.api.get(`/sources/${source.id}/event_summaries`, query)).body;
      const ns = async (query: Record<string, string | number> = {}) => (await page(query)).data.map((s: any) => s.event.n);
      assert.deepEqual(await ns(), [2, 1, 0]);
      assert.deepEqual(await ns(), [2, 1, 0], "the same page twice");
      // The endpoint accepts before the run (no custom response): the page is polled, and a
      // page kept from before the write would never change.
      await post(source.configured_props.http.endpoint_url, emitsOf([{ n: 3 }]));
      await waitFor(async () => JSON.stringify(await ns()) === "[3,2,1,0]", { what: "the new event on the page", timeoutMs: 20_000 });
      assert.equal((await page()).page_info.total_count, 4);
      await post(source.configured_props.http.endpoint_url, emitsOf(Array.from({ length: 100 }, (_, i) => ({ n: 4 + i }))));
      await waitFor(async () => JSON.stringify(await ns({ limit: 2 })) === "[103,102]", {
        what: "the newest of 100 more",
        timeoutMs: 20_000,
      });
      assert.equal((await page()).page_info.total_count, 100, "trimmed to the newest 100");
      await account.api.delete(`/sources/${source.id}/events`);
      await waitFor(async () => (await ns()).length === 0, { what: "deleted events gone from the page", timeoutMs: 20_000 });
      const stranger = await app.newAccount();
      assert.equal(
        (await stranger.api.get(`/sources/${source.id}/event_summaries`)).status,
        404,
        "another account, after the owner's page was read",
      );
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      assert.equal((await account.api.get(`/sources/${source.id}/event_summaries`)).status, 404, "a deleted source");
    });

    it("truncates events over 1 KB unless expand=event", async () => {
      const big = { text: "x".repeat(2000) };
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      await post(source.configured_props.http.endpoint_url, emitsOf([big, { small: true }]));
      await waitForEvents(account.api, source.id, 2);
      const plain = await account.api.get(`/sources/${source.id}/event_summaries`);
      const [small, truncated] = plain.body.data;
      assert.deepEqual(small.event, { small: true });
      assert.equal(small.metadata.truncated, undefined);
      assert.equal(truncated.event.$truncated, true);
      assert.equal(truncated.event.preview, JSON.stringify(big).slice(0, 1024));
      assert.equal(truncated.metadata.truncated, true);
      const expanded = await account.api.get(`/sources/${source.id}/event_summaries`, { expand: "event" });
      assert.deepEqual(expanded.body.data[1].event, big);
    });

    it("keeps only the newest 100 events per stream", async () => {
      const { source } = await sourceWithEvents(105);
      const all = await summaries(account.api, source.id);
      assert.equal(all.length, 100);
      assert.equal(all[0].event.n, 104);
      assert.equal(all[99].event.n, 5);
      const page = await account.api.get(`/sources/${source.id}/event_summaries`, { limit: 1 });
      assert.equal(page.body.page_info.total_count, 100);
    });

    it("DELETE /events: start_id..end_id inclusive, only start, only end, the same id, none; 202 and done in the background", async () => {
      const { source, events } = await sourceWithEvents(10);
      const idOf = (n: number) => events.find((s: any) => s.event.n === n).id;
      const remaining = async () =>
        (await summaries(account.api, source.id)).map((s: any) => s.event.n).sort((a: number, b: number) => a - b);
      const waitRemaining = (expected: number[]) =>
        waitFor(async () => JSON.stringify(await remaining()) === JSON.stringify(expected), {
          what: `remaining ${expected}`,
          timeoutMs: 20_000,
        });

      let res = await account.api.delete(`/sources/${source.id}/events`, { start_id: idOf(4), end_id: idOf(4) });
      assert.equal(res.status, 202);
      await waitRemaining([0, 1, 2, 3, 5, 6, 7, 8, 9]);
      res = await account.api.delete(`/sources/${source.id}/events`, { start_id: idOf(2), end_id: idOf(5) });
      assert.equal(res.status, 202);
      await waitRemaining([0, 1, 6, 7, 8, 9]);
      await account.api.delete(`/sources/${source.id}/events`, { start_id: idOf(8) });
      await waitRemaining([0, 1, 6, 7]);
      await account.api.delete(`/sources/${source.id}/events`, { end_id: idOf(0) });
      await waitRemaining([1, 6, 7]);
      await account.api.delete(`/sources/${source.id}/events`);
      await waitRemaining([]);
      assert.equal((await account.api.delete(`/sources/${source.id}/events`, { start_id: "not-an-id" })).status, 400);
      assert.equal((await account.api.delete("/sources/dc_unknown/events")).status, 404);
    });

    for (const [strategy, batches, expected] of [
      [
        "unique",
        [
          ["a", "b"],
          ["b", "c", "a", "d"],
        ],
        ["a", "b", "c", "d"],
      ],
      [
        "greatest",
        [
          [3, 5],
          [4, 6, 2, 7],
        ],
        [3, 5, 6, 7],
      ],
      ["last", [["a", "b"], ["a", "b", "c"], ["x"]], ["a", "b", "c", "x"]],
    ] as const) {
      it(`dedupe "${strategy}" drops repeated emits`, async () => {
        const code = fixtureCode("dedupe-template.mjs").replaceAll("__STRATEGY__", strategy);
        const source = await createSource(account.api, { component_code: code });
        const url = source.configured_props.http.endpoint_url;
        let total = 0;
        for (const [index, batch] of (batches as readonly (readonly (string | number)[])[]).entries()) {
          await post(url, { batch: index, items: batch.map((id) => ({ id })) });
          await waitForEvents(account.api, source.id, index + 1, { event_name: "runs" });
          total += batch.length;
        }
        const stored = await waitForEvents(account.api, source.id, expected.length);
        assert.deepEqual(stored.map((s: any) => s.event.id).reverse(), expected);
        assert.deepEqual(stored.map((s: any) => s.metadata.id).reverse(), expected);
        assert.ok(total > expected.length);
      });
    }

    it("a subscription delivers events to a source, which runs with the delivered event", async () => {
      const emitter = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const listener = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const sub = await account.api.post("/subscriptions", undefined, { emitter_id: emitter.id, listener_id: listener.id });
      assert.equal(sub.status, 200, sub.text);
      await post(emitter.configured_props.http.endpoint_url, emitsOf([{ hello: "listener" }]));
      const [counter] = await waitForEvents(account.api, listener.id, 1, { event_name: "counter" });
      assert.deepEqual(counter.event, { count: 1 });
    });

    it("live tail: SSE streams new summaries with id and data, filters by stream, resumes with Last-Event-ID", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const url = source.configured_props.http.endpoint_url;
      await post(url, emitsOf([{ before: true }]));
      const [old] = await waitForEvents(account.api, source.id, 1);

      const controller = new AbortController();
      const res = await fetch(`${app.baseUrl}/sources/${source.id}/sse`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
        signal: controller.signal,
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
      const reader = res.body!.getReader();
      let buffer = "";
      const nextMessage = async (): Promise<{ id: string; data: any }> => {
        for (;;) {
          const match = /(?:^|\n)id: ([^\n]+)\ndata: ([^\n]+)\n\n/.exec(buffer);
          if (match) {
            buffer = buffer.slice((match.index ?? 0) + match[0].length);
            return { id: match[1] as string, data: JSON.parse(match[2] as string) };
          }
          const chunk = await reader.read();
          if (chunk.done) throw new Error("stream ended");
          buffer += new TextDecoder().decode(chunk.value);
        }
      };
      await post(url, emitsOf([{ live: 1 }]));
      const message = await nextMessage();
      assert.deepEqual(message.data.event, { live: 1 }, "only events after connecting");
      assert.equal(message.data.id, message.id);
      controller.abort();

      const resumed = await fetch(`${app.baseUrl}/sources/${source.id}/sse`, {
        headers: { authorization: `Bearer ${account.apiKey}`, "last-event-id": old.id },
      });
      const resumedReader = resumed.body!.getReader();
      let text = "";
      while (!text.includes('"live":1')) text += new TextDecoder().decode((await resumedReader.read()).value);
      assert.ok(text.indexOf('"live":1') > -1 && !text.includes('"before":true'), "resumes after Last-Event-ID");
      await resumedReader.cancel();

      const errors = await fetch(`${app.baseUrl}/sources/${source.id}/sse?event_name=$errors`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
      });
      const errorsReader = errors.body!.getReader();
      await post(url, { emits: [{ event: { not: "an error" } }], throw: "tail me" });
      let errorsText = "";
      while (!errorsText.includes("tail me")) errorsText += new TextDecoder().decode((await errorsReader.read()).value);
      const streams = [...errorsText.matchAll(/\ndata: ([^\n]+)/g)].map((m) => JSON.parse(m[1] as string).metadata.name);
      assert.deepEqual(streams, ["$errors"], "only the $errors stream");
      await errorsReader.cancel();

      const idle = await fetch(`${app.baseUrl}/sources/${source.id}/sse`, { headers: { authorization: `Bearer ${account.apiKey}` } });
      const idleReader = idle.body!.getReader();
      let idleText = "";
      while (!idleText.includes(": keepalive\n\n")) idleText += new TextDecoder().decode((await idleReader.read()).value);
      await idleReader.cancel();

      assert.equal((await fetch(`${app.baseUrl}/sources/${source.id}/sse`)).status, 401);
      assert.equal(
        (await fetch(`${app.baseUrl}/sources/dc_nope/sse`, { headers: { authorization: `Bearer ${account.apiKey}` } })).status,
        404,
      );
    });
  });
}
