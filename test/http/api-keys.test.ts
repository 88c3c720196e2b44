// API keys of an account: several keys, masked lists, revocation (at once here, within 5 s in
// another process), expiry, and last_used_at written at most once a minute.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FakeClock } from "../../src/lib/clock.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/dialects.js";
import { ApiClient } from "../helpers/http-client.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const KEY = /^sk_sluice_[A-Za-z0-9]{40}$/;

for (const dialect of DIALECTS) {
  describe(`API keys [${dialect}]`, () => {
    let database: TestDatabase;
    let app: TestApp;
    let other: TestApp;
    const clock = new FakeClock(Date.now());
    before(async () => {
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, {}, { database, clock });
      // A second process on the same database.
      other = await startTestApp(dialect, {}, { database, roles: ["api"] });
    });
    after(async () => {
      await other?.close();
      await app?.close();
      await database?.drop();
    });

    it("makes a key shown in full once; lists every key of the account masked, the first one included", async () => {
      const account = await app.newAccount();
      const created = await account.api.post("/users/me/api_keys", { name: "ci" });
      assert.equal(created.status, 200, created.text);
      const key = created.body.data;
      assert.deepEqual(Object.keys(key).sort(), ["api_key", "created_at", "expires_at", "id", "last_used_at", "name"]);
      assert.match(key.id, /^key_/);
      assert.match(key.api_key, KEY);
      assert.equal(key.name, "ci");
      assert.equal(key.expires_at, null);
      assert.equal(key.last_used_at, null);

      const second = account.api.withKey(key.api_key);
      assert.equal((await second.get("/users/me")).body.data.id, account.id, "the new key acts for the same account");
      assert.equal((await account.api.get("/users/me")).status, 200, "the first key keeps working");

      const list = await second.get("/users/me/api_keys", { limit: 1 });
      assert.equal(list.status, 200);
      assert.equal(list.body.page_info.total_count, 2);
      assert.equal(list.body.data.length, 1);
      const rest = await second.get("/users/me/api_keys", { after: list.body.page_info.end_cursor });
      const all = [...list.body.data, ...rest.body.data];
      assert.deepEqual(all.map((k: { id: string }) => k.id).sort(), [key.id, all.find((k: { id: string }) => k.id !== key.id).id].sort());
      for (const listed of all) {
        assert.doesNotMatch(listed.api_key, KEY, "listed keys are masked");
        assert.match(listed.api_key, /\*{4}/);
      }
      assert.ok(
        all.some((k: { api_key: string }) => k.api_key.endsWith(account.apiKey.slice(-4))),
        "the account's first key is listed",
      );
      assert.equal(all.find((k: { id: string }) => k.id === key.id).last_used_at, Math.floor(clock.now() / 1000), "last use recorded");
    });

    it("revokes a key: refused at once by this process and within 5 s by another; the last key cannot be revoked", async () => {
      const account = await app.newAccount();
      const made = (await account.api.post("/users/me/api_keys", {})).body.data;
      const doomed = account.api.withKey(made.api_key);
      const elsewhere = new ApiClient(other.baseUrl, made.api_key);
      assert.equal((await doomed.get("/users/me")).status, 200);
      assert.equal((await elsewhere.get("/users/me")).status, 200, "cached by the other process");

      const revoked = await account.api.call("DELETE", `/users/me/api_keys/${made.id}`);
      assert.equal(revoked.status, 204, revoked.text);
      const refused = await doomed.get("/users/me");
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, "UNAUTHORIZED");

      const deadline = Date.now() + 5_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) status = (await elsewhere.get("/users/me")).status;
      assert.equal(status, 401, "the other process refuses it within 5 s");

      const keys = (await account.api.get("/users/me/api_keys")).body.data;
      assert.equal(keys.length, 1);
      const last = await account.api.call("DELETE", `/users/me/api_keys/${keys[0].id}`);
      assert.equal(last.status, 409);
      assert.equal(last.body.code, "CONFLICT");
      assert.equal((await account.api.get("/users/me")).status, 200);
      assert.equal((await account.api.call("DELETE", `/users/me/api_keys/${made.id}`)).status, 404, "already revoked");
    });

    it("another account's key is not found, and stays valid", async () => {
      const owner = await app.newAccount();
      const stranger = await app.newAccount();
      const key = (await owner.api.post("/users/me/api_keys", {})).body.data;
      const res = await stranger.api.call("DELETE", `/users/me/api_keys/${key.id}`);
      assert.equal(res.status, 404);
      assert.equal((await owner.api.withKey(key.api_key).get("/users/me")).status, 200);
    });

    it("an expired key is refused; expires_at must lie in the future", async () => {
      const account = await app.newAccount();
      const nowSeconds = Math.floor(clock.now() / 1000);
      const past = await account.api.post("/users/me/api_keys", { expires_at: nowSeconds - 1 });
      assert.equal(past.status, 400);
      const key = (await account.api.post("/users/me/api_keys", { expires_at: nowSeconds + 60 })).body.data;
      assert.equal(key.expires_at, nowSeconds + 60);
      const client = account.api.withKey(key.api_key);
      assert.equal((await client.get("/users/me")).status, 200);
      clock.advance(61_000);
      const expired = await client.get("/users/me");
      assert.equal(expired.status, 401);
      assert.match(expired.body.error, /expired/);
      assert.equal((await account.api.get("/users/me")).status, 200, "keys without expiry still work");
    });

    it("last_used_at is written at most once a minute, not on every request", async () => {
      const account = await app.newAccount();
      const lastUsed = async () =>
        (
          await app.sluice.services.ctx.db
            .selectFrom("api_keys")
            .select("last_used_at")
            .where("user_id", "=", account.id)
            .executeTakeFirstOrThrow()
        ).last_used_at;
      await account.api.get("/users/me");
      const first = Number(await lastUsed());
      assert.equal(first, clock.now());
      clock.advance(10_000); // past the per-process cache of authenticated keys
      await account.api.get("/users/me");
      assert.equal(Number(await lastUsed()), first, "unchanged within the minute");
      clock.advance(60_000);
      await account.api.get("/users/me");
      assert.equal(Number(await lastUsed()), clock.now());
    });
  });
}
