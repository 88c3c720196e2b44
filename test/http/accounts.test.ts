// Connected accounts: CRUD, credentials never shown by any answer, encrypted at rest, app props
// naming an account (and the older inline `$auth` turned into one), the code seeing
// `this.<app>.$auth`, 409 while used, and a wrong or missing key refused at start.
import assert from "node:assert/strict";
import { statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConfigError } from "../../src/config.js";
import { KEY_FILE } from "../../src/domain/accounts/credential-key.js";
import { createTestDatabase, DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode } from "../fixtures/components/sources/helpers.js";

const SECRET = "sk-live-do-not-show-3f9a";
const OTHER_SECRET = "sk-rotated-do-not-show-77c1";
const INLINE_SECRET = "inline-secret-do-not-show-91b";

const noSecret = (text: string) => {
  for (const secret of [SECRET, OTHER_SECRET, INLINE_SECRET]) assert.ok(!text.includes(secret), `an answer shows a credential: ${text}`);
};

async function callEndpoint(source: any): Promise<any> {
  const res = await fetch(source.configured_props.http.endpoint_url, { method: "POST" });
  assert.equal(res.status, 200);
  return res.json();
}

for (const dialect of DIALECTS) {
  describe(`connected accounts [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount();
    });
    after(async () => app.close());

    it("creates, lists, reads, changes and deletes accounts, showing only field names", async () => {
      const created = await account.api.post("/accounts", { app: "demo", name: "work", credentials: { token: SECRET, region: "eu" } });
      assert.equal(created.status, 200, created.text);
      noSecret(created.text);
      const view = created.body.data;
      assert.match(view.id, /^apn_/);
      assert.deepEqual({ app: view.app, name: view.name, fields: view.fields }, { app: "demo", name: "work", fields: ["token", "region"] });
      assert.equal(typeof view.created_at, "number");

      const list = await account.api.get("/users/me/accounts", { limit: "1" });
      assert.equal(list.status, 200);
      noSecret(list.text);
      assert.equal(list.body.page_info.count, 1);
      assert.equal(list.body.data[0].id, view.id);

      const read = await account.api.get(`/accounts/${view.id}`);
      noSecret(read.text);
      assert.deepEqual(read.body.data, view);

      const changed = await account.api.put(`/accounts/${view.id}`, { name: "renamed", credentials: { token: OTHER_SECRET } });
      assert.equal(changed.status, 200, changed.text);
      noSecret(changed.text);
      assert.deepEqual({ name: changed.body.data.name, fields: changed.body.data.fields }, { name: "renamed", fields: ["token"] });

      assert.equal((await account.api.delete(`/accounts/${view.id}`)).status, 204);
      assert.equal((await account.api.get(`/accounts/${view.id}`)).status, 404);
    });

    it("stores credentials encrypted (AES-GCM text, not the plaintext)", async () => {
      const created = await account.api.post("/accounts", { app: "demo", credentials: { token: SECRET } });
      const row = await app.sluice.services.ctx.db
        .selectFrom("connected_accounts")
        .selectAll()
        .where("id", "=", created.body.data.id)
        .executeTakeFirstOrThrow();
      assert.ok(!row.credentials.includes(SECRET));
      assert.match(row.credentials, /^v1\.[A-Za-z0-9+/=]+$/);
      assert.deepEqual(JSON.parse(row.fields), ["token"]);
      await account.api.delete(`/accounts/${created.body.data.id}`);
    });

    it("answers bad input with a clear 4xx", async () => {
      const missing = await account.api.post("/accounts", { app: "demo" });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /credentials is required/);
      const notObject = await account.api.post("/accounts", { app: "demo", credentials: ["a"] });
      assert.equal(notObject.status, 400);
      assert.match(notObject.body.error, /credentials must be a JSON object/);
      const noApp = await account.api.post("/accounts", { credentials: { token: SECRET } });
      assert.equal(noApp.status, 400);
      assert.match(noApp.body.error, /app is required/);
      noSecret(noApp.text);

      const code = fixtureCode("app-auth.mjs");
      const shapes: [unknown, RegExp][] = [
        ["a string", /configured_props\.demo must be \{"authProvisionId"/],
        [{ token: SECRET }, /configured_props\.demo must be \{"authProvisionId"/],
        [{ authProvisionId: 5 }, /authProvisionId must be/],
        [{ $auth: "x" }, /configured_props\.demo\.\$auth must be a JSON object/],
      ];
      for (const [value, message] of shapes) {
        const res = await account.api.post("/sources", { component_code: code, configured_props: { demo: value } });
        assert.equal(res.status, 400, `${JSON.stringify(value)}: ${res.text}`);
        assert.match(res.body.error, message);
        noSecret(res.text);
      }
      const otherApp = await account.api.post("/accounts", { app: "slack", credentials: { token: SECRET } });
      const wrongApp = await account.api.post("/sources", {
        component_code: code,
        configured_props: { demo: { authProvisionId: otherApp.body.data.id } },
      });
      assert.equal(wrongApp.status, 400);
      assert.match(wrongApp.body.error, /is for "slack"/);
      const stranger = await app.newAccount();
      const theirs = await stranger.api.post("/accounts", { app: "demo", credentials: { token: SECRET } });
      const foreign = await account.api.post("/sources", {
        component_code: code,
        configured_props: { demo: { authProvisionId: theirs.body.data.id } },
      });
      assert.equal(foreign.status, 404);
      assert.match(foreign.body.error, /names no connected account/);
      const unknownId = await account.api.post("/sources", {
        component_code: code,
        configured_props: { demo: { authProvisionId: "apn_nope" } },
      });
      assert.equal(unknownId.status, 404);
      assert.equal(unknownId.body.error, foreign.body.error, "another account's id is as unknown as a missing one");
    });

    it("gives the code this.<app>.$auth from the account an app prop names, and refuses to delete it while used", async () => {
      const connected = (await account.api.post("/accounts", { app: "demo", credentials: { token: SECRET } })).body.data;
      const source = await createSource(account.api, {
        component_code: fixtureCode("app-auth.mjs"),
        configured_props: { demo: { authProvisionId: connected.id } },
      });
      assert.deepEqual(source.configured_props.demo, { authProvisionId: connected.id });
      assert.deepEqual(await callEndpoint(source), { auth: { token: SECRET }, header: `Bearer ${SECRET}` });

      const row = await app.sluice.services.ctx.db
        .selectFrom("sources")
        .select("configured_props")
        .where("id", "=", source.id)
        .executeTakeFirstOrThrow();
      noSecret(row.configured_props);

      await account.api.put(`/accounts/${connected.id}`, { credentials: { token: OTHER_SECRET } });
      assert.deepEqual((await callEndpoint(source)).auth, { token: OTHER_SECRET });

      const refused = await account.api.delete(`/accounts/${connected.id}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, "CONFLICT");
      assert.match(refused.body.error, new RegExp(source.id));
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      assert.equal((await account.api.delete(`/accounts/${connected.id}`)).status, 204);
    });

    it("turns an inline $auth into a connected account and replaces its credentials on update", async () => {
      const code = fixtureCode("app-auth.mjs");
      const created = await account.api.post("/sources", {
        component_code: code,
        configured_props: { demo: { $auth: { token: INLINE_SECRET } } },
      });
      assert.equal(created.status, 200, created.text);
      noSecret(created.text);
      const source = created.body.data;
      const accountId = source.configured_props.demo.authProvisionId;
      assert.match(accountId, /^apn_/);
      assert.deepEqual(await callEndpoint(source), { auth: { token: INLINE_SECRET }, header: `Bearer ${INLINE_SECRET}` });
      for (const res of [
        await account.api.get(`/sources/${source.id}`),
        await account.api.get("/users/me/sources"),
        await account.api.get("/users/me/accounts"),
      ]) {
        assert.equal(res.status, 200);
        noSecret(res.text);
      }
      assert.deepEqual((await account.api.get(`/accounts/${accountId}`)).body.data.fields, ["token"]);

      const updated = await account.api.put(`/sources/${source.id}`, {
        component_code: code,
        configured_props: { demo: { $auth: { token: SECRET } } },
      });
      assert.equal(updated.status, 200, updated.text);
      noSecret(updated.text);
      assert.deepEqual(updated.body.data.configured_props.demo, { authProvisionId: accountId });
      assert.deepEqual((await callEndpoint(updated.body.data)).auth, { token: SECRET });

      // The account the inline form made goes with its source.
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      assert.equal((await account.api.get(`/accounts/${accountId}`)).status, 404);
    });
  });

  describe(`credential key at start [${dialect}]`, () => {
    it("refuses a key that is not the one the database was encrypted with", async () => {
      const database = await createTestDatabase(dialect);
      try {
        const first = await startTestApp(dialect, {}, { database });
        await first.close();
        if (dialect === "sqlite") assert.equal(statSync(join(database.dataDir, KEY_FILE)).mode & 0o777, 0o600);
        await assert.rejects(startTestApp(dialect, { secretKey: Buffer.alloc(32, 7) }, { database }), (error: Error) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.match(error.message, /not the key the database's connected accounts were encrypted with/);
          return true;
        });
        if (dialect === "sqlite") {
          unlinkSync(join(database.dataDir, KEY_FILE));
          await assert.rejects(
            startTestApp(dialect, {}, { database }),
            (error: Error) => error instanceof ConfigError && /key file .* is missing/.test(error.message),
          );
        }
      } finally {
        await database.drop();
      }
    });
  });
}
