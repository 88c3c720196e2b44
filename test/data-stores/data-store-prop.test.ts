// A `data_store` prop in user code, on both databases: checked at save (a 400 names the prop),
// Pipedream's API inside run() with its return values, a counter kept across runs, TTLs read
// with the injected clock, concurrent runs that never lose or tear a value, the storage quota,
// and stores of other accounts out of reach.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dataStoreCalls } from "../../src/domain/data-stores/data-store-calls.js";
import { ServiceError } from "../../src/lib/errors.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode } from "../fixtures/components/sources/helpers.js";
import { waitFor } from "../helpers/wait-for.js";

function jumpingClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, jump: (ms: number) => void (offset += ms) };
}

const CODE = fixtureCode("data-store-ops.mjs");

async function newStore(account: Account, name = "store"): Promise<string> {
  const res = await account.api.post("/data_stores", { name });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

async function opsSource(account: Account, storeId: string): Promise<(ops: unknown[][]) => Promise<any>> {
  const source = await createSource(account.api, { component_code: CODE, configured_props: { store: { dataStoreId: storeId } } });
  const url = source.configured_props.http.endpoint_url;
  return async (ops) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ops }) });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text);
  };
}

for (const dialect of DIALECTS) {
  describe(`data store props [${dialect}]`, () => {
    let app: TestApp;
    const clock = jumpingClock();
    const QUOTA = 60_000;
    before(async () => {
      app = await startTestApp(dialect, { accountStorageBytes: QUOTA }, { clock });
    });
    after(async () => app?.close());

    it("a data store prop is checked at save: required, shaped {dataStoreId}, a store of the account", async () => {
      const account = await app.newAccount();
      const other = await app.newAccount();
      const foreign = await newStore(other);
      const cases: Array<[unknown, RegExp]> = [
        [{}, /configured_props\.store is required/],
        [{ store: "ds_x" }, /configured_props\.store must name a data store/],
        [{ store: { dataStoreId: foreign } }, /configured_props\.store: data store ds_\w+ was not found in this account/],
      ];
      for (const [configured_props, message] of cases) {
        const res = await account.api.post("/sources", { component_code: CODE, configured_props });
        assert.equal(res.status, 400, res.text);
        assert.match(res.body.error, message);
      }
      const mine = await newStore(account);
      const source = await createSource(account.api, { component_code: CODE, configured_props: { store: { dataStoreId: mine } } });
      assert.deepEqual(source.configured_props.store, { dataStoreId: mine });
      const moved = await account.api.put(`/sources/${source.id}`, {
        component_code: CODE,
        configured_props: { store: { dataStoreId: foreign } },
      });
      assert.equal(moved.status, 400, moved.text);
    });

    it("user code gets Pipedream's API: get, set, has, delete, keys, entries, for await, setTtl, clear", async () => {
      const account = await app.newAccount();
      const storeId = await newStore(account);
      const run = await opsSource(account, storeId);
      const { results, error } = await run([
        ["get", "missing"],
        ["has", "missing"],
        ["set", "b", { nested: [1, "two"] }],
        ["set", "a", "text"],
        ["get", "b"],
        ["has", "b"],
        ["keys"],
        ["entries"],
        ["iterate"],
        ["date", "when", "2026-01-02T03:04:05.000Z"],
        ["delete", "a"],
        ["delete", "a"],
        ["setTtl", "b", 3600],
        ["setTtl", "missing", 3600],
      ]);
      assert.equal(error, undefined);
      assert.deepEqual(results, [
        { $undefined: true },
        false,
        { $undefined: true },
        { $undefined: true },
        { nested: [1, "two"] },
        true,
        ["a", "b"],
        [
          ["a", "text"],
          ["b", { nested: [1, "two"] }],
        ],
        { a: "text", b: { nested: [1, "two"] } },
        "2026-01-02T03:04:05.000Z",
        true,
        false,
        true,
        false,
      ]);
      // What code set, the API reads: the TTL set by setTtl shows as the record's expiry.
      const record = await account.api.get(`/data_stores/${storeId}/records/b`);
      assert.deepEqual(record.body.data.value, { nested: [1, "two"] });
      assert.ok(record.body.data.expires_at > Math.floor(clock.now() / 1000) + 3500);
      // And what the API set, code reads; clear empties the store.
      await account.api.put(`/data_stores/${storeId}/records/from-api`, { value: [1, 2, 3] });
      assert.deepEqual((await run([["get", "from-api"], ["clear"], ["keys"]])).results, [[1, 2, 3], { $undefined: true }, []]);
      assert.equal((await account.api.get(`/data_stores/${storeId}/records`)).body.page_info.total_count, 0);
    });

    it("a counter kept across runs counts every run, also when many run at once", async () => {
      const account = await app.newAccount();
      const storeId = await newStore(account);
      const run = await opsSource(account, storeId);
      for (let n = 1; n <= 5; n++) assert.deepEqual((await run([["increment", "counter"]])).results, [n]);
      const parallel = await Promise.all(Array.from({ length: 20 }, () => run([["increment", "counter"]])));
      assert.deepEqual(
        parallel.map((r) => r.results[0]).sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 6),
      );
      assert.equal((await account.api.get(`/data_stores/${storeId}/records/counter`)).body.data.value, 25);
    });

    it("two sources sharing a store: parallel runs never lose a key's writes nor tear a value", async () => {
      const account = await app.newAccount();
      const storeId = await newStore(account);
      const [first, second] = [await opsSource(account, storeId), await opsSource(account, storeId)];
      const big = (fill: string) => fill.repeat(20_000);
      const runs: Promise<any>[] = [];
      for (let i = 0; i < 10; i++) {
        runs.push(
          first([
            ["increment", "first"],
            ["set", "shared", big("a")],
            ["get", "shared"],
          ]),
        );
        runs.push(
          second([
            ["increment", "second"],
            ["set", "shared", big("b")],
            ["get", "shared"],
          ]),
        );
      }
      for (const { results, error } of await Promise.all(runs)) {
        assert.equal(error, undefined);
        assert.ok(results[2] === big("a") || results[2] === big("b"), "a read sees one whole value");
      }
      const { results } = await first([
        ["get", "first"],
        ["get", "second"],
      ]);
      assert.deepEqual(results, [10, 10]);
      // The store's bytes are exactly its records': nothing counted twice under concurrency.
      const row = await app.sluice.services.ctx.db
        .selectFrom("data_stores")
        .select("bytes")
        .where("id", "=", storeId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.bytes), "first".length + 2 + "second".length + 2 + "shared".length + 20_002);
    });

    it("TTLs follow the injected clock; a set without a ttl keeps the record's expiry, {ttl: null} removes it", async () => {
      const account = await app.newAccount();
      const storeId = await newStore(account);
      const run = await opsSource(account, storeId);
      await run([
        ["set", "limit", 1, { ttl: 60 }],
        ["set", "limit", 2],
        ["set", "token", "t", { ttl: 60 }],
        ["set", "token", "t", { ttl: null }],
        ["set", "short", "s", { ttl: 30 }],
      ]);
      assert.notEqual((await account.api.get(`/data_stores/${storeId}/records/limit`)).body.data.expires_at, null);
      assert.equal((await account.api.get(`/data_stores/${storeId}/records/token`)).body.data.expires_at, null);
      clock.jump(31_000);
      assert.deepEqual(
        (
          await run([
            ["has", "short"],
            ["get", "short"],
            ["get", "limit"],
          ])
        ).results,
        [false, { $undefined: true }, 2],
      );
      clock.jump(30_000);
      assert.deepEqual((await run([["get", "limit"], ["keys"]])).results, [{ $undefined: true }, ["token"]]);
      assert.deepEqual((await run([["set", "bad", 1, { ttl: -1 }]])).error.name, "DataStoreError");
    });

    it("limits and the storage quota reach code as errors naming them; nothing is stored", async () => {
      const account = await app.newAccount();
      const storeId = await newStore(account);
      const run = await opsSource(account, storeId);
      const longKey = await run([["set", "k".repeat(600), 1]]);
      assert.equal(longKey.error.name, "DataStoreError");
      assert.match(longKey.error.message, /512 bytes/);
      const big = await run([["fill", "big", "x", 1024 * 1024]]);
      assert.match(big.error.message, /1048576 bytes/);
      // Near the quota (usage is read again every few seconds: once the account's figure shows
      // the fill, a write that would pass the quota is refused).
      assert.equal((await run([["fill", "fill", "f", QUOTA - 5_000]])).error, undefined);
      await waitFor(async () => ((await account.api.get("/users/me")).body.data.storage_used_bytes >= QUOTA - 5_000 ? true : undefined), {
        what: "the fill in the account's storage figure",
      });
      const refused = (
        await run([
          ["fill", "more", "m", 10_000],
          ["get", "more"],
        ])
      ).error;
      assert.equal(refused?.name, "DataStoreLimitError");
      assert.match(refused.message, /SLUICE_ACCOUNT_STORAGE_MB/);
      assert.equal((await account.api.get(`/data_stores/${storeId}/records/more`)).status, 404);
    });

    it("a store deleted after save, or of another account, is out of reach of code", async () => {
      const account = await app.newAccount();
      const other = await app.newAccount();
      const storeId = await newStore(account);
      const run = await opsSource(account, storeId);
      assert.equal((await account.api.delete(`/data_stores/${storeId}`)).status, 204);
      const gone = await run([["get", "k"]]);
      assert.equal(gone.error.name, "DataStoreError");
      assert.match(gone.error.message, /data store ds_\w+ was not found in this account/);
      // The service answers for the runner's own account only, whatever id a call names.
      const foreign = await newStore(other);
      await other.api.put(`/data_stores/${foreign}/records/secret`, { value: "theirs" });
      const calls = dataStoreCalls(app.sluice.services.ctx);
      for (const [method, args] of [
        ["dataStore.get", { dataStoreId: foreign, key: "secret" }],
        ["dataStore.set", { dataStoreId: foreign, key: "secret", json: '"mine"' }],
        ["dataStore.clear", { dataStoreId: foreign }],
        ["dataStore.keys", { dataStoreId: foreign }],
      ] as const) {
        await assert.rejects(
          calls[method]!(account.id, args),
          (error: unknown) => error instanceof ServiceError && error.code === "NOT_FOUND",
        );
      }
      await assert.rejects(calls["dataStore.set"]!(other.id, { dataStoreId: foreign, key: "k", json: "{not json" }), /must be JSON/);
      assert.equal((await other.api.get(`/data_stores/${foreign}/records/secret`)).body.data.value, "theirs");
    });
  });
}
