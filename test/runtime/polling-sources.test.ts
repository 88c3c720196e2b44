// Polling sources written with real npm HTTP libraries — axios (what @pipedream/platform's
// axios wraps), node-fetch 3 and rss-parser — run on their timers in runners, with and without
// the OS sandbox, against a loopback server through the egress proxy: each tick emits the new
// items only, remembering what it saw in $.service.db and deduping by id. With private egress
// off, the same sources record a clear refusal on $errors and nothing reaches the server. The
// packages come from the project's node_modules, seeded into each app's npm cache.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { FakeClock } from "../../src/lib/clock.js";
import { packageRoot } from "../../src/runtime/package-root.js";
import { fireDueTimers } from "../../src/scheduler/fire-due-timers.js";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { SANDBOX_MODES } from "../helpers/sandbox-modes.js";
import { seedNpmCache } from "../helpers/seed-npm-cache.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitForLeaseRelease } from "../helpers/source-lease.js";

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const PACKAGES = ["axios", "node-fetch", "rss-parser"];

interface Item {
  id: number;
  title: string;
  created_at: string;
}

interface Seen {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

/** The loopback "internet": a JSON API, a whole list with an ETag, and an RSS feed, each its own items. */
class FeedServer {
  readonly api: Item[] = [];
  readonly list: Item[] = [];
  readonly feed: Item[] = [];
  readonly seen: Seen[] = [];
  private server: Server | undefined;
  port = 0;

  static item(id: number, title: string): Item {
    return { id, title, created_at: new Date(T0 + id * 1000).toISOString() };
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://loopback");
      this.seen.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
      if (url.pathname === "/items") {
        const since = Number(url.searchParams.get("since") ?? 0);
        return res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ items: this.api.filter((item) => item.id > since) }));
      }
      if (url.pathname === "/list") {
        const body = JSON.stringify({ items: this.list });
        const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
        if (req.headers["if-none-match"] === etag) return res.writeHead(304, { etag }).end();
        return res.writeHead(200, { "content-type": "application/json", etag }).end(body);
      }
      if (url.pathname === "/feed.xml") return res.writeHead(200, { "content-type": "application/rss+xml" }).end(this.rss());
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  hits(path: string): Seen[] {
    return this.seen.filter((seen) => seen.path === path);
  }

  private rss(): string {
    const items = [...this.feed]
      .reverse()
      .map(
        (item) =>
          `<item><title>${item.title}</title><link>http://news.test/${item.id}</link><guid isPermaLink="false">news-${item.id}</guid><pubDate>${new Date(item.created_at).toUTCString()}</pubDate></item>`,
      );
    return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Loopback News</title><link>http://news.test/</link><description>items</description>${items.join("")}</channel></rss>`;
  }

  close(): void {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

for (const dialect of DIALECTS)
  for (const { mode, skip } of SANDBOX_MODES) {
    describe(`polling sources with npm HTTP libraries [${dialect}, sandbox ${mode}]`, { skip }, () => {
      const clock = new FakeClock(T0);
      const server = new FeedServer();
      let open: TestApp;
      let closed: TestApp;
      let account: Account;
      let stranger: Account;

      before(async () => {
        await server.start();
        [open, closed] = await Promise.all([
          startTestApp(dialect, { allowPrivateEgress: true, sandbox: mode }, { clock, roles: ["api", "worker"] }),
          startTestApp(dialect, { allowPrivateEgress: false, sandbox: mode }, { clock, roles: ["api", "worker"] }),
        ]);
        for (const app of [open, closed]) seedNpmCache(app.config.dataDir, PACKAGES);
        [account, stranger] = await Promise.all([open.newAccount(), closed.newAccount()]);
        for (const app of [open, closed]) assert.equal((await request(app.origin, "GET", "/healthz")).body.sandbox, mode);
      });
      after(async () => {
        await Promise.all([open?.close(), closed?.close()]);
        server.close();
      });

      /** One timer interval passes and the app's scheduler fires; the source must be among those fired. */
      async function tick(app: TestApp, ...sourceIds: string[]): Promise<void> {
        for (const id of sourceIds) await waitForLeaseRelease(app, id);
        clock.advance(60_000);
        const fired = await fireDueTimers(app.sluice.services.ctx, app.sluice.services.queue);
        for (const id of sourceIds) assert.ok(fired.includes(id), `the timer of ${id} fired`);
      }

      const events = (data: any[]) => data.map((summary) => summary.event).reverse();

      it("axios: each tick asks for what came after the newest item seen and emits only new items", async () => {
        server.api.push(FeedServer.item(1, "first"), FeedServer.item(2, "second"));
        const url = `http://127.0.0.1:${server.port}/items`;
        const source = await createSource(account.api, {
          component_code: fixtureCode("polling/axios-json-poller.mjs"),
          configured_props: { url },
        });
        await tick(open, source.id);
        const first = await waitForEvents(account.api, source.id, 2);
        assert.deepEqual(events(first), [
          { id: 1, title: "first", via: "axios", status: 200 },
          { id: 2, title: "second", via: "axios", status: 200 },
        ]);
        assert.equal(first[0].metadata.summary, "second");

        server.api.push(FeedServer.item(3, "third"));
        await tick(open, source.id);
        const second = await waitForEvents(account.api, source.id, 3);
        assert.deepEqual(
          events(second).map((event) => event.id),
          [1, 2, 3],
        );
        assert.deepEqual(
          server.hits("/items").map((hit) => hit.query.get("since")),
          ["0", "2"],
          "the newest id seen was kept in $.service.db",
        );
        assert.equal((await summaries(account.api, source.id, { event_name: "$errors" })).length, 0);
      });

      it("node-fetch: an unchanged list (304 to its ETag) emits nothing; a changed one emits the new items (a name resolved through the proxy)", async () => {
        server.list.push(FeedServer.item(1, "alpha"), FeedServer.item(2, "beta"));
        const url = `http://localhost:${server.port}/list`;
        const source = await createSource(account.api, {
          component_code: fixtureCode("polling/node-fetch-poller.mjs"),
          configured_props: { url },
        });
        await tick(open, source.id);
        assert.deepEqual(events(await waitForEvents(account.api, source.id, 2)), [
          { id: 1, title: "alpha", via: "node-fetch" },
          { id: 2, title: "beta", via: "node-fetch" },
        ]);

        await tick(open, source.id);
        const [log] = await waitForEvents(account.api, source.id, 1, { event_name: "$logs" });
        assert.equal(log.event.message, "not modified");
        assert.equal((await summaries(account.api, source.id)).length, 2);

        server.list.push(FeedServer.item(3, "gamma"));
        await tick(open, source.id);
        assert.deepEqual(
          events(await waitForEvents(account.api, source.id, 3)).map((event) => event.title),
          ["alpha", "beta", "gamma"],
        );
        const hits = server.hits("/list");
        assert.equal(hits.length, 3);
        assert.equal(hits[0]!.headers["if-none-match"], undefined);
        assert.match(String(hits[1]!.headers["if-none-match"]), /^"[0-9a-f]{16}"$/);
        assert.equal((await summaries(account.api, source.id, { event_name: "$errors" })).length, 0);
      });

      it("rss-parser: each tick reads the whole feed and dedupe keeps only the items not seen before", async () => {
        server.feed.push(FeedServer.item(1, "Launch"), FeedServer.item(2, "Update"));
        const url = `http://127.0.0.1:${server.port}/feed.xml`;
        const source = await createSource(account.api, {
          component_code: fixtureCode("polling/rss-poller.cjs"),
          configured_props: { url },
        });
        await tick(open, source.id);
        const first = await waitForEvents(account.api, source.id, 2);
        assert.deepEqual(events(first), [
          { id: "news-1", title: "Launch", link: "http://news.test/1", feed: "Loopback News", via: "rss-parser" },
          { id: "news-2", title: "Update", link: "http://news.test/2", feed: "Loopback News", via: "rss-parser" },
        ]);
        assert.equal(first[0].metadata.summary, "Loopback News: Update");

        server.feed.push(FeedServer.item(3, "Sequel"));
        await tick(open, source.id);
        const second = await waitForEvents(account.api, source.id, 3);
        assert.deepEqual(
          events(second).map((event) => event.id),
          ["news-1", "news-2", "news-3"],
        );
        assert.equal(server.hits("/feed.xml").length, 2);
        assert.equal((await summaries(account.api, source.id, { event_name: "$errors" })).length, 0);
      });

      it("with private egress off, each library's request is refused and the source's $errors says so", async () => {
        // Paths of their own: runs of the other app's sources may still reach the server meanwhile.
        const made = await Promise.all(
          [
            ["polling/axios-json-poller.mjs", `http://127.0.0.1:${server.port}/refused/items`],
            ["polling/node-fetch-poller.mjs", `http://localhost:${server.port}/refused/list`],
            ["polling/rss-poller.cjs", `http://127.0.0.1:${server.port}/refused/feed.xml`],
          ].map(([file, url]) => createSource(stranger.api, { component_code: fixtureCode(file!), configured_props: { url } })),
        );
        await tick(closed, ...made.map((source) => source.id));
        for (const source of made) {
          const [failure] = await waitForEvents(stranger.api, source.id, 1, { event_name: "$errors", expand: "event" });
          assert.match(
            failure.event.error.message,
            /egress to a private or loopback address is refused/,
            `${source.name}: ${JSON.stringify(failure.event.error)}`,
          );
          assert.ok(!failure.event.error.stack.includes(packageRoot()), `no host path in the stack: ${failure.event.error.stack}`);
          assert.deepEqual(failure.event.original_event, { timestamp: clock.now() / 1000, interval_seconds: 60 });
          assert.equal((await summaries(stranger.api, source.id)).length, 0);
        }
        assert.deepEqual(
          server.seen.filter((seen) => seen.path.startsWith("/refused/")),
          [],
          "nothing reached the server",
        );
      });
    });
  }
