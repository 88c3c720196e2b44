import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import type { ApiClient } from "../helpers/http-client.js";
import { FakeClock } from "../../src/lib/clock.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { fakeLookup, PUBLIC_ADDRESS, type DnsTable } from "../helpers/fake-dns.js";
import { createHostAddresses } from "../../src/egress/host-addresses.js";

const ACCEPTED_URLS = [
  "http://example.test",
  "https://example.test/",
  "https://example.test:8443/hooks/in?x=1",
  "HTTPS://Example.Test/Upper",
  "http://unresolvable.test/", // may resolve by the first delivery; each attempt reports its own failure
  "http://public.test/",
];

/** Hosts that are, or resolve to, addresses the egress guard refuses while SLUICE_ALLOW_PRIVATE_EGRESS is off. */
const PRIVATE_URLS = [
  "http://127.0.0.1:9/path",
  "http://[::1]:8080/p",
  "http://2130706433/",
  "http://[::ffff:127.0.0.1]/",
  "http://10.1.2.3/",
  "http://169.254.169.254/latest/meta-data",
  "http://localhost:8080/",
  "http://internal.test/",
  "http://mixed.test/",
];

/** This host's own addresses as the test gives them: public addresses (a public IP on an interface), refused all the same. */
const HOST_ADDRESSES = ["198.51.99.7", "2001:4860:ffff::7"];

const DNS: DnsTable = {
  addresses: {
    "self.test": [{ address: HOST_ADDRESSES[0]!, family: 4 }],
    localhost: [{ address: "127.0.0.1", family: 4 }],
    "public.test": [{ address: PUBLIC_ADDRESS, family: 4 }],
    "internal.test": [{ address: "192.168.1.20", family: 4 }],
    "mixed.test": [
      { address: PUBLIC_ADDRESS, family: 4 },
      { address: "fd00::1", family: 6 },
    ],
  },
};

const REJECTED_URLS = [
  "example.test/hook", // no protocol
  "//example.test/hook", // no protocol
  "ftp://example.test/file",
  "ws://example.test/socket",
  "javascript:alert(1)",
  "mailto:someone@example.test",
  "file:///etc/passwd",
  "http://", // no host
  "https:///path-only", // no host
  "http:example.test", // no "//"
  "http://:8080/", // port without host
  "http://example.test:99999/", // port out of range
  " https://example.test/", // leading space
  "",
];

async function createWebhook(api: ApiClient, query: Record<string, string>) {
  return api.post("/webhooks", undefined, query);
}

for (const dialect of DIALECTS) {
  describe(`webhooks [${dialect}]`, () => {
    let app: TestApp;
    let alice: Account;
    // The clock moves only when a test moves it, so creation order is list order exactly
    // (real time could give two webhooks the same millisecond).
    const clock = new FakeClock(Date.now());
    const hostAddresses = createHostAddresses({ read: () => HOST_ADDRESSES });
    before(async () => {
      app = await startTestApp(dialect, { allowPrivateEgress: false }, { clock, roles: ["api"], lookup: fakeLookup(DNS), hostAddresses });
      alice = await app.newAccount();
    });
    after(async () => {
      hostAddresses.close();
      await app.close();
    });

    it("creates a webhook from the query string, with a whsec_ secret and Unix-second timestamps", async () => {
      clock.advance(1500);
      const res = await createWebhook(alice.api, { url: "https://example.test/in", name: "Mine", description: "for tests" });
      assert.equal(res.status, 200);
      const hook = res.body.data;
      assert.match(hook.id, /^wh_[A-Za-z0-9_-]+$/);
      assert.equal(hook.user_id, alice.id);
      assert.equal(hook.url, "https://example.test/in");
      assert.equal(hook.name, "Mine");
      assert.equal(hook.description, "for tests");
      assert.equal(hook.active, true);
      assert.match(hook.signing_secret, /^whsec_[A-Za-z0-9+/=]{20,}$/);
      for (const field of ["created_at", "updated_at"]) {
        assert.ok(Number.isInteger(hook[field]), field);
        assert.equal(hook[field], Math.floor(clock.now() / 1000), `${field} is in Unix seconds`);
      }
      const read = await alice.api.get(`/webhooks/${hook.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.data.signing_secret, undefined, "the secret is shown at creation only");
    });

    it("name and description default to null", async () => {
      const res = await createWebhook(alice.api, { url: "https://example.test/plain" });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.name, null);
      assert.equal(res.body.data.description, null);
    });

    it("accepts http and https URLs with a host, a port and a path", async () => {
      for (const url of ACCEPTED_URLS) {
        const res = await createWebhook(alice.api, { url });
        assert.equal(res.status, 200, `${url}: ${res.text}`);
        assert.equal(new URL(res.body.data.url).href, new URL(url).href);
      }
    });

    it("rejects URLs without http/https or without a host, with a JSON 400", async () => {
      for (const url of REJECTED_URLS) {
        const res = await createWebhook(alice.api, { url });
        assert.equal(res.status, 400, `${JSON.stringify(url)}: ${res.text}`);
        assert.equal(typeof res.body.error, "string");
      }
      const missing = await alice.api.post("/webhooks");
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /url/);
    });

    it("refuses the host's own interface addresses, by address and by a name that resolves to one, on create and on update", async () => {
      const kept = (await createWebhook(alice.api, { url: "https://public.test/kept-too" })).body.data;
      for (const url of ["http://198.51.99.7:8080/", "http://[2001:4860:ffff::7]/", "https://self.test/hook"]) {
        const created = await createWebhook(alice.api, { url });
        assert.equal(created.status, 400, `${url}: ${created.text}`);
        assert.match(created.body.error, /SLUICE_ALLOW_PRIVATE_EGRESS/, url);
        assert.equal((await alice.api.put(`/webhooks/${kept.id}`, { url })).status, 400, url);
      }
      // The same addresses one apart are public: only the host's own are refused.
      assert.equal((await createWebhook(alice.api, { url: "http://198.51.99.8/" })).status, 200);
    });

    it("refuses a URL whose host is or resolves to a private or loopback address with a 400 naming SLUICE_ALLOW_PRIVATE_EGRESS, on create and on update", async () => {
      const kept = (await createWebhook(alice.api, { url: "https://public.test/kept" })).body.data;
      for (const url of PRIVATE_URLS) {
        const created = await createWebhook(alice.api, { url });
        assert.equal(created.status, 400, `${url}: ${created.text}`);
        assert.equal(created.body.code, "VALIDATION", created.text);
        assert.match(created.body.error, /SLUICE_ALLOW_PRIVATE_EGRESS/, url);
        const updated = await alice.api.put(`/webhooks/${kept.id}`, { url });
        assert.equal(updated.status, 400, `${url}: ${updated.text}`);
        assert.match(updated.body.error, /SLUICE_ALLOW_PRIVATE_EGRESS/, url);
      }
      assert.match(
        (await createWebhook(alice.api, { url: "http://internal.test/" })).body.error,
        /internal\.test resolves to 192\.168\.1\.20/,
      );
      assert.equal((await alice.api.get(`/webhooks/${kept.id}`)).body.data.url, "https://public.test/kept");
    });

    it("works with content-type application/json and an empty body, with no body, and with a JSON body", async () => {
      const empty = await alice.api.call("POST", "/webhooks", {
        query: { url: "https://example.test/a" },
        raw: "",
        headers: { "content-type": "application/json" },
      });
      assert.equal(empty.status, 200, empty.text);
      const none = await alice.api.call("POST", "/webhooks", { query: { url: "https://example.test/b" } });
      assert.equal(none.status, 200, none.text);
      const json = await alice.api.post("/webhooks", { url: "https://example.test/c", name: "from body" });
      assert.equal(json.status, 200, json.text);
      assert.equal(json.body.data.name, "from body");
      for (const type of ["application/json; charset=utf-8", "application/json;charset=UTF-8", "Application/JSON"]) {
        const typed = await alice.api.call("POST", "/webhooks", {
          raw: JSON.stringify({ url: "https://example.test/d", name: type }),
          headers: { "content-type": type },
        });
        assert.equal(typed.status, 200, `${type}: ${typed.text}`);
        assert.equal(typed.body.data.name, type);
        const emptyTyped = await alice.api.call("POST", "/webhooks", {
          query: { url: "https://example.test/e" },
          raw: "",
          headers: { "content-type": type },
        });
        assert.equal(emptyTyped.status, 200, `${type}, empty: ${emptyTyped.text}`);
      }
    });

    it("GET, PUT and DELETE one webhook", async () => {
      const created = (await createWebhook(alice.api, { url: "https://example.test/manage", name: "old" })).body.data;
      clock.advance(2000);
      const put = await alice.api.put(`/webhooks/${created.id}`, {
        name: "new",
        description: "d",
        url: "http://example.test:81/x",
        active: false,
      });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.data.name, "new");
      assert.equal(put.body.data.description, "d");
      assert.equal(put.body.data.url, "http://example.test:81/x");
      assert.equal(put.body.data.active, false);
      assert.equal(put.body.data.updated_at, created.updated_at + 2, "updated_at moves, created_at stays");
      assert.equal(put.body.data.created_at, created.created_at);

      const read = await alice.api.get(`/webhooks/${created.id}`);
      assert.deepEqual({ ...read.body.data }, { ...put.body.data });

      const clear = await alice.api.put(`/webhooks/${created.id}`, { name: null });
      assert.equal(clear.body.data.name, null);
      assert.equal(clear.body.data.description, "d", "fields not given stay as they were");

      const badUrl = await alice.api.put(`/webhooks/${created.id}`, { url: "ftp://example.test/" });
      assert.equal(badUrl.status, 400);
      assert.equal((await alice.api.get(`/webhooks/${created.id}`)).body.data.url, "http://example.test:81/x");

      const del = await alice.api.delete(`/webhooks/${created.id}`);
      assert.equal(del.status, 204);
      assert.equal(del.text, "");
      const gone = await alice.api.get(`/webhooks/${created.id}`);
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body.error, "record not found");
      assert.equal((await alice.api.delete(`/webhooks/${created.id}`)).status, 404);
      assert.equal((await alice.api.put(`/webhooks/${created.id}`, { name: "x" })).status, 404);
    });

    it("deleting a webhook removes the subscriptions that deliver to it", async () => {
      const hook = (await createWebhook(alice.api, { url: "https://example.test/subbed" })).body.data;
      const sub = await alice.api.post("/subscriptions", undefined, { emitter_id: "dc_*", listener_id: hook.id });
      assert.equal(sub.status, 200);
      assert.equal((await alice.api.delete(`/webhooks/${hook.id}`)).status, 204);
      const subs = await alice.api.get("/users/me/subscriptions");
      assert.ok(!subs.body.data.some((s: any) => s.listener_id === hook.id));
    });

    describe("listing", () => {
      let lister: Account;
      let ids: string[]; // newest first, as the API lists them
      const TOTAL = 25;
      before(async () => {
        lister = await app.newAccount();
        const made: string[] = [];
        for (let i = 0; i < TOTAL; i++) {
          clock.advance(1000);
          made.push((await createWebhook(lister.api, { url: `https://example.test/${i}`, name: `hook ${i}` })).body.data.id);
        }
        ids = made.reverse();
      });

      it("lists newest first without user_id, 10 by default, with page_info", async () => {
        const res = await lister.api.get("/users/me/webhooks");
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), ["data", "page_info"]);
        assert.equal(res.body.data.length, 10);
        assert.deepEqual(
          res.body.data.map((w: any) => w.id),
          ids.slice(0, 10),
        );
        const times = res.body.data.map((w: any) => w.created_at);
        assert.deepEqual(
          times,
          [...times].sort((a: number, b: number) => b - a),
          "newest first",
        );
        assert.equal(new Set(times).size, times.length);
        for (const item of res.body.data) {
          assert.equal("user_id" in item, false);
          assert.equal("signing_secret" in item, false);
          assert.deepEqual(Object.keys(item).sort(), ["active", "created_at", "description", "id", "name", "updated_at", "url"]);
        }
        const info = res.body.page_info;
        assert.deepEqual(Object.keys(info).sort(), ["count", "end_cursor", "start_cursor", "total_count"]);
        assert.equal(info.total_count, TOTAL);
        assert.equal(info.count, 10);
        assert.equal(typeof info.start_cursor, "string");
        assert.equal(typeof info.end_cursor, "string");
      });

      it("enforces limit bounds 1..100", async () => {
        for (const limit of ["0", "-1", "101", "1.5", "abc", "1e100", ""]) {
          const res = await lister.api.get("/users/me/webhooks", { limit });
          assert.equal(res.status, 400, `limit=${limit}: ${res.text}`);
          assert.equal(typeof res.body.error, "string");
        }
        assert.equal((await lister.api.get("/users/me/webhooks", { limit: 1 })).body.data.length, 1);
        const all = await lister.api.get("/users/me/webhooks", { limit: 100 });
        assert.equal(all.body.data.length, TOTAL);
        assert.deepEqual(
          all.body.data.map((w: any) => w.id),
          ids,
        );
      });

      it("walks forward with `after` and back with `before`, page_info exact on every page", async () => {
        const limit = 7;
        const pages: any[] = [];
        let cursor: string | undefined;
        for (;;) {
          const res = await lister.api.get("/users/me/webhooks", { limit, after: cursor });
          assert.equal(res.status, 200, res.text);
          pages.push(res.body);
          if (res.body.data.length < limit) break;
          cursor = res.body.page_info.end_cursor;
        }
        assert.deepEqual(
          pages.map((p) => p.data.length),
          [7, 7, 7, 4],
        );
        assert.deepEqual(
          pages.flatMap((p) => p.data.map((w: any) => w.id)),
          ids,
        );
        for (const page of pages) {
          assert.equal(page.page_info.total_count, TOTAL);
          assert.equal(page.page_info.count, page.data.length);
        }

        // From the last page, walk back to the first with `before` start_cursor.
        let back = pages[pages.length - 1];
        const seen: string[][] = [back.data.map((w: any) => w.id)];
        for (;;) {
          const res = await lister.api.get("/users/me/webhooks", { limit, before: back.page_info.start_cursor });
          assert.equal(res.status, 200, res.text);
          if (res.body.data.length === 0) {
            assert.deepEqual(res.body.page_info, { total_count: TOTAL, count: 0, start_cursor: "", end_cursor: "" });
            break;
          }
          assert.equal(res.body.page_info.count, res.body.data.length);
          assert.equal(res.body.page_info.total_count, TOTAL);
          seen.unshift(res.body.data.map((w: any) => w.id));
          back = res.body;
        }
        assert.deepEqual(seen.flat(), ids, "walking back visits every item once, in list order");
        assert.deepEqual(
          seen.map((page) => page.length),
          [7, 7, 7, 4],
        );

        // A page's cursors point at its own first and last items.
        const middle = pages[1];
        const again = await lister.api.get("/users/me/webhooks", { limit: 1, after: pages[0].page_info.end_cursor });
        assert.equal(again.body.data[0].id, middle.data[0].id);
        assert.equal(again.body.page_info.start_cursor, middle.page_info.start_cursor);
        const beforeLast = await lister.api.get("/users/me/webhooks", { limit: 1, before: pages[2].page_info.start_cursor });
        assert.equal(beforeLast.body.data[0].id, middle.data[middle.data.length - 1].id);
        assert.equal(beforeLast.body.page_info.end_cursor, middle.page_info.end_cursor);

        // Past the end: an empty page with empty cursors.
        const past = await lister.api.get("/users/me/webhooks", { limit, after: pages[pages.length - 1].page_info.end_cursor });
        assert.deepEqual(past.body, { page_info: { total_count: TOTAL, count: 0, start_cursor: "", end_cursor: "" }, data: [] });
      });

      it("refuses cursors it did not make", async () => {
        for (const cursor of [
          "garbage",
          Buffer.from("[1,2,3]").toString("base64url"),
          Buffer.from('[1e308,"wh_x"]').toString("base64url"),
          "x".repeat(600),
        ]) {
          const res = await lister.api.get("/users/me/webhooks", { after: cursor });
          assert.equal(res.status, 400, `${cursor}: ${res.text}`);
          assert.equal((await lister.api.get("/users/me/webhooks", { before: cursor })).status, 400);
        }
      });

      it("include and exclude pick top-level fields of each item", async () => {
        const included = await lister.api.get("/users/me/webhooks", { include: "id,url", limit: 3 });
        assert.equal(included.status, 200);
        for (const item of included.body.data) assert.deepEqual(Object.keys(item).sort(), ["id", "url"]);
        assert.equal(included.body.page_info.count, 3, "page_info is not projected");

        const excluded = await lister.api.get("/users/me/webhooks", { exclude: "description, created_at", limit: 3 });
        for (const item of excluded.body.data) assert.deepEqual(Object.keys(item).sort(), ["active", "id", "name", "updated_at", "url"]);

        const one = await lister.api.get(`/webhooks/${ids[0]}`, { include: "name" });
        assert.deepEqual(one.body.data, { name: "hook 24" });
        const created = await lister.api.post("/webhooks", undefined, { url: "https://example.test/p", exclude: "signing_secret,user_id" });
        assert.equal(created.status, 200);
        assert.equal("signing_secret" in created.body.data, false);
        assert.equal("user_id" in created.body.data, false);
        await lister.api.delete(`/webhooks/${created.body.data.id}`);
      });

      it("never lists another account's webhooks", async () => {
        const res = await alice.api.get("/users/me/webhooks", { limit: 100 });
        assert.ok(!res.body.data.some((w: any) => ids.includes(w.id)));
        assert.equal((await alice.api.get(`/webhooks/${ids[0]}`)).status, 404);
      });
    });
  });
}
