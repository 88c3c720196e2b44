// Data stores over the REST API, on both databases: stores made, listed, read and deleted;
// records set, read, paged and deleted; limits on keys and values named in 4xx answers; TTLs
// that hide a record once passed and the retention pass that removes it; the bytes counted in the
// account's storage quota; another account's store a 404 everywhere.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pruneExpired } from "../../src/domain/retention/prune-expired.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";

/** The system's time, moved forward by hand: TTLs pass without waiting. */
function jumpingClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, jump: (ms: number) => void (offset += ms) };
}

for (const dialect of DIALECTS) {
  describe(`data stores API [${dialect}]`, () => {
    let app: TestApp;
    const clock = jumpingClock();
    const QUOTA = 40_000;
    before(async () => {
      app = await startTestApp(dialect, { accountStorageBytes: QUOTA }, { clock });
    });
    after(async () => app?.close());

    it("creates, lists, reads and deletes a store; records are set, read, paged and deleted", async () => {
      const { api } = await app.newAccount();
      const created = await api.post("/data_stores", { name: "customers" });
      assert.equal(created.status, 200, created.text);
      const store = created.body.data;
      assert.match(store.id, /^ds_[A-Za-z0-9]{16}$/);
      assert.equal(store.name, "customers");
      assert.equal(typeof store.created_at, "number");
      await api.post("/data_stores", { name: "orders" });

      const list = await api.get("/users/me/data_stores");
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((s: any) => s.name),
        ["orders", "customers"],
      );
      assert.equal(list.body.page_info.total_count, 2);
      assert.deepEqual((await api.get(`/data_stores/${store.id}`)).body.data, store);

      const values: Record<string, unknown> = { a: 1, "b/with slash": { nested: [1, "two", null] }, c: "text", d: false, "é ünïcode": [] };
      for (const [key, value] of Object.entries(values)) {
        const put = await api.put(`/data_stores/${store.id}/records/${encodeURIComponent(key)}`, { value });
        assert.equal(put.status, 200, put.text);
        assert.deepEqual(put.body.data.value, value);
        assert.equal(put.body.data.key, key);
        assert.equal(put.body.data.expires_at, null);
      }
      const one = await api.get(`/data_stores/${store.id}/records/${encodeURIComponent("b/with slash")}`);
      assert.deepEqual(one.body.data.value, { nested: [1, "two", null] });

      // Pages of two in key order, forwards and back.
      const first = await api.get(`/data_stores/${store.id}/records`, { limit: 2 });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.page_info.total_count, 5);
      assert.deepEqual(
        first.body.data.map((r: any) => r.key),
        ["a", "b/with slash"],
      );
      const second = await api.get(`/data_stores/${store.id}/records`, { limit: 2, after: first.body.page_info.end_cursor });
      assert.deepEqual(
        second.body.data.map((r: any) => r.key),
        ["c", "d"],
      );
      const third = await api.get(`/data_stores/${store.id}/records`, { limit: 2, after: second.body.page_info.end_cursor });
      assert.deepEqual(
        third.body.data.map((r: any) => [r.key, r.value]),
        [["é ünïcode", []]],
      );
      const back = await api.get(`/data_stores/${store.id}/records`, { limit: 2, before: second.body.page_info.start_cursor });
      assert.deepEqual(
        back.body.data.map((r: any) => r.key),
        ["a", "b/with slash"],
      );
      assert.equal((await api.get(`/data_stores/${store.id}/records`, { after: "not a cursor" })).status, 400);

      assert.equal((await api.put(`/data_stores/${store.id}/records/a`, { value: 2 })).body.data.value, 2);
      assert.equal((await api.delete(`/data_stores/${store.id}/records/a`)).status, 204);
      assert.equal((await api.get(`/data_stores/${store.id}/records/a`)).status, 404);
      assert.equal((await api.delete(`/data_stores/${store.id}/records/a`)).status, 404);

      assert.equal((await api.delete(`/data_stores/${store.id}`)).status, 204);
      assert.equal((await api.get(`/data_stores/${store.id}`)).status, 404);
      assert.equal((await api.get(`/data_stores/${store.id}/records/c`)).status, 404);
      assert.equal((await api.get("/users/me/data_stores")).body.page_info.total_count, 1);
    });

    it("another account's store is a 404 for every route, and is left alone", async () => {
      const owner = await app.newAccount();
      const stranger = await app.newAccount();
      const store = (await owner.api.post("/data_stores", { name: "private" })).body.data;
      await owner.api.put(`/data_stores/${store.id}/records/secret`, { value: "mine" });
      const attempts = [
        stranger.api.get(`/data_stores/${store.id}`),
        stranger.api.get(`/data_stores/${store.id}/records`),
        stranger.api.get(`/data_stores/${store.id}/records/secret`),
        stranger.api.put(`/data_stores/${store.id}/records/secret`, { value: "theirs" }),
        stranger.api.delete(`/data_stores/${store.id}/records/secret`),
        stranger.api.delete(`/data_stores/${store.id}`),
      ];
      for (const res of await Promise.all(attempts)) assert.deepEqual([res.status, res.body.error], [404, "record not found"]);
      assert.equal((await stranger.api.get("/users/me/data_stores")).body.data.length, 0);
      assert.equal((await owner.api.get(`/data_stores/${store.id}/records/secret`)).body.data.value, "mine");
    });

    it("refuses bad names, keys, values and TTLs with a 4xx naming the limit", async () => {
      const { api } = await app.newAccount();
      assert.equal((await api.post("/data_stores", {})).status, 400);
      assert.equal((await api.post("/data_stores", { name: "x".repeat(300) })).status, 400);
      const store = (await api.post("/data_stores", { name: "limits" })).body.data;
      const longKey = await api.put(`/data_stores/${store.id}/records/${"k".repeat(513)}`, { value: 1 });
      assert.equal(longKey.status, 400, longKey.text);
      assert.match(longKey.body.error, /512 bytes/);
      assert.equal((await api.put(`/data_stores/${store.id}/records/${"k".repeat(512)}`, { value: 1 })).status, 200);
      const big = await api.put(`/data_stores/${store.id}/records/big`, { value: "x".repeat(1024 * 1024) });
      assert.equal(big.status, 413, big.text);
      assert.match(big.body.error, /1048576 bytes/);
      assert.equal((await api.put(`/data_stores/${store.id}/records/k`, {})).status, 400, "value is required");
      assert.equal((await api.put(`/data_stores/${store.id}/records/k`, { value: 1, ttl_seconds: -5 })).status, 400);
      assert.equal((await api.put(`/data_stores/${store.id}/records/k`, { value: 1, ttl_seconds: "soon" })).status, 400);
      assert.equal((await api.put(`/data_stores/${store.id}/records/k%00x`, { value: 1 })).status, 400);
      assert.equal((await api.get("/data_stores/ds_unknown0000000")).status, 404);
    });

    it("a record past its TTL is never returned, and the sweep removes it and frees its bytes", async () => {
      const { api } = await app.newAccount();
      const store = (await api.post("/data_stores", { name: "ttl" })).body.data;
      const put = await api.put(`/data_stores/${store.id}/records/session`, { value: "x".repeat(5000), ttl_seconds: 60 });
      assert.equal(put.status, 200, put.text);
      assert.ok(Math.abs(put.body.data.expires_at - (Math.floor(clock.now() / 1000) + 60)) <= 1);
      await api.put(`/data_stores/${store.id}/records/kept`, { value: "forever" });
      const used = await waitFor(
        async () => {
          const bytes = (await api.get("/users/me")).body.data.storage_used_bytes;
          return bytes >= 5000 ? bytes : undefined;
        },
        { what: "the record's bytes in storage_used_bytes" },
      );
      assert.equal(used, "session".length + 5002 + "kept".length + '"forever"'.length);

      clock.jump(61_000);
      assert.equal((await api.get(`/data_stores/${store.id}/records/session`)).status, 404);
      const page = await api.get(`/data_stores/${store.id}/records`);
      assert.deepEqual(
        page.body.data.map((r: any) => r.key),
        ["kept"],
      );
      assert.equal(page.body.page_info.total_count, 1);

      // The worker's retention pass sweeps them (here called at once instead of waiting for it).
      assert.ok((await pruneExpired(app.sluice.services.ctx, { pauseMs: 0 })).expiredRecords >= 1);
      await waitFor(
        async () => (await api.get("/users/me")).body.data.storage_used_bytes === "kept".length + '"forever"'.length || undefined,
        { what: "the swept record's bytes given back" },
      );
    });

    it("records count in the storage quota: past it a write that grows the store answers 429, a smaller one still goes", async () => {
      const { api } = await app.newAccount();
      const store = (await api.post("/data_stores", { name: "quota" })).body.data;
      const chunk = "y".repeat(15_000);
      assert.equal((await api.put(`/data_stores/${store.id}/records/one`, { value: chunk })).status, 200);
      assert.equal((await api.put(`/data_stores/${store.id}/records/two`, { value: chunk })).status, 200);
      await waitFor(async () => ((await api.get("/users/me")).body.data.storage_used_bytes >= 30_000 ? true : undefined), {
        what: "usage read again",
      });
      const over = await api.put(`/data_stores/${store.id}/records/three`, { value: chunk });
      assert.equal(over.status, 429, over.text);
      assert.equal(over.body.code, "LIMIT_EXCEEDED");
      assert.match(over.body.error, /SLUICE_ACCOUNT_STORAGE_MB/);
      assert.ok(over.headers.get("retry-after"));
      assert.equal((await api.get(`/data_stores/${store.id}/records/three`)).status, 404);
      // Shrinking a record is always allowed; so is deleting one, which frees room.
      assert.equal((await api.put(`/data_stores/${store.id}/records/one`, { value: "small" })).status, 200);
      assert.equal((await api.delete(`/data_stores/${store.id}/records/two`)).status, 204);
      await waitFor(async () => ((await api.get("/users/me")).body.data.storage_used_bytes < 1000 ? true : undefined), {
        what: "usage down",
      });
      assert.equal((await api.put(`/data_stores/${store.id}/records/three`, { value: chunk })).status, 200);
    });
  });
}
