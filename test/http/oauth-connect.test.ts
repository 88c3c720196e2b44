// OAuth 2 connect against a provider the test starts on loopback: the operator configures an
// app (its secret sealed and never shown), a user starts a connect (state and PKCE S256 in the
// provider URL), consents, and the callback exchanges the code and stores an account the
// refresh can use. State is single use; denied consent, an unknown state and a failing token
// endpoint are 4xx pages that say why; nothing echoes a secret.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openCredentials, sealCredentials } from "../../src/domain/accounts/credentials.js";
import { freshCredentials } from "../../src/domain/accounts/oauth-refresh.js";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startOAuthProvider, type OAuthProvider } from "../helpers/oauth-provider.js";
import { ADMIN_TOKEN, startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const CLIENT_SECRET = "client-secret-do-not-show-5d2e";

for (const dialect of DIALECTS) {
  describe(`OAuth connect [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let provider: OAuthProvider;
    const admin = (method: string, path: string, json?: unknown) => request(app.baseUrl, method, path, { key: ADMIN_TOKEN, json });

    before(async () => {
      provider = await startOAuthProvider();
      app = await startTestApp(dialect, { allowPrivateEgress: true });
      account = await app.newAccount();
      provider.clients.set("sluice-client", {
        clientId: "sluice-client",
        clientSecret: CLIENT_SECRET,
        redirectUri: `${app.origin}/oauth/callback`,
      });
    });
    after(async () => {
      await app?.close();
      await provider?.close();
    });

    const configure = (overrides: Record<string, unknown> = {}) =>
      admin("POST", "/admin/oauth_apps", {
        app: "testprov",
        client_id: "sluice-client",
        client_secret: CLIENT_SECRET,
        authorize_url: provider.authorizeUrl,
        token_url: provider.tokenUrl,
        scopes: ["repo", "read:user"],
        ...overrides,
      });

    /** Starts a connect and answers the provider's consent page: the callback URL it sends the browser to. */
    async function consent(decision: "allow" | "deny", name?: string): Promise<{ callback: string; providerUrl: URL }> {
      const started = await account.api.get("/accounts/oauth/testprov/start", name ? { name } : undefined);
      assert.equal(started.status, 200, started.text);
      const providerUrl = new URL(started.body.data.url);
      const page = await fetch(providerUrl);
      assert.equal(page.status, 200, await page.clone().text());
      const form = new URLSearchParams({ decision });
      for (const field of ["client_id", "redirect_uri", "state", "code_challenge", "scope"])
        form.set(field, providerUrl.searchParams.get(field) ?? "");
      const answer = await fetch(`${provider.origin}/consent?${form}`, { redirect: "manual" });
      assert.equal(answer.status, 302);
      return { callback: answer.headers.get("location")!, providerUrl };
    }

    const callback = (url: string) => fetch(url, { redirect: "manual" });

    it("configures, lists and replaces an OAuth app for the admin only, never showing its secret", async () => {
      const created = await configure();
      assert.equal(created.status, 200, created.text);
      assert.ok(!created.text.includes(CLIENT_SECRET));
      assert.deepEqual(
        { ...created.body.data, created_at: 0, updated_at: 0 },
        {
          app: "testprov",
          client_id: "sluice-client",
          has_client_secret: true,
          authorize_url: provider.authorizeUrl,
          token_url: provider.tokenUrl,
          scopes: ["repo", "read:user"],
          created_at: 0,
          updated_at: 0,
        },
      );
      const row = await app.sluice.services.ctx.db
        .selectFrom("oauth_apps")
        .selectAll()
        .where("app", "=", "testprov")
        .executeTakeFirstOrThrow();
      assert.ok(!row.client_secret.includes(CLIENT_SECRET));
      assert.match(row.client_secret, /^v1\./);
      // The same app again replaces it.
      assert.equal((await configure({ scopes: ["repo"] })).body.data.scopes.join(), "repo");
      const listed = await admin("GET", "/admin/oauth_apps");
      assert.equal(listed.status, 200);
      assert.ok(!listed.text.includes(CLIENT_SECRET));
      assert.deepEqual(
        listed.body.data.map((a: any) => a.app),
        ["testprov"],
      );
      // Users see which apps connect by OAuth, and nothing of their clients.
      const forUsers = await account.api.get("/accounts/oauth_apps");
      assert.deepEqual(forUsers.body.data, [{ app: "testprov", scopes: ["repo"] }]);
      assert.equal((await account.api.post("/admin/oauth_apps", {})).status, 401);
      assert.equal((await request(app.baseUrl, "GET", "/admin/oauth_apps", { key: account.apiKey })).status, 401);
      assert.equal((await configure()).status, 200);
    });

    it("refuses a bad OAuth app with a 400 naming the field", async () => {
      for (const [overrides, pattern] of [
        [{ app: "no spaces please" }, /^app must be/],
        [{ authorize_url: "not a url" }, /^authorize_url must be an absolute URL/],
        [{ token_url: "ftp://provider.test/token" }, /^token_url must use https/],
        [{ token_url: "https://user:pw@provider.test/token" }, /must not hold a user name/],
        [{ scopes: ["two words"] }, /^scopes: "two words" is not a scope/],
      ] as const) {
        const res = await configure({ ...overrides, app: (overrides as any).app ?? "badapp" });
        assert.equal(res.status, 400, res.text);
        assert.match(res.body.error, pattern);
      }
      assert.equal((await admin("GET", "/admin/oauth_apps")).body.data.length, 1);
    });

    it("connects an account: state and PKCE S256 sent, code exchanged with the verifier, tokens stored for the refresh", async () => {
      const { callback: back, providerUrl } = await consent("allow", "my provider");
      const params = providerUrl.searchParams;
      assert.equal(params.get("code_challenge_method"), "S256");
      assert.equal(params.get("scope"), "repo read:user");
      assert.equal(params.get("redirect_uri"), `${app.origin}/oauth/callback`);
      assert.ok((params.get("state") ?? "").length >= 43);
      assert.deepEqual(provider.refused, []);

      const done = await callback(back);
      assert.equal(done.status, 303, await done.text());
      const location = done.headers.get("location")!;
      assert.match(location, /^\/ui#\/accounts\/apn_[A-Za-z0-9]+$/);
      const id = location.split("/").pop()!;

      const exchange = provider.tokenRequests.at(-1)!;
      assert.equal(exchange.grant_type, "authorization_code");
      assert.equal(exchange.redirect_uri, `${app.origin}/oauth/callback`);
      assert.match(exchange.code_verifier ?? "", /^[A-Za-z0-9_-]{43}$/);
      assert.ok(!params.toString().includes(exchange.code_verifier!), "the verifier never leaves with the browser");

      const read = await account.api.get(`/accounts/${id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(
        { app: read.body.data.app, name: read.body.data.name, fields: [...read.body.data.fields].sort() },
        {
          app: "testprov",
          name: "my provider",
          fields: [
            "oauth_access_token",
            "oauth_client_id",
            "oauth_client_secret",
            "oauth_expires_at",
            "oauth_refresh_token",
            "oauth_token_url",
          ],
        },
      );
      assert.ok(!read.text.includes(CLIENT_SECRET));

      // What the refresh reads: a token due soon is refreshed with the stored client.
      const ctx = app.sluice.services.ctx;
      const row = await ctx.db.selectFrom("connected_accounts").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      const stored = openCredentials(ctx, id, row.credentials);
      assert.equal(stored.oauth_token_url, provider.tokenUrl);
      assert.equal(stored.oauth_client_secret, CLIENT_SECRET);
      await ctx.db
        .updateTable("connected_accounts")
        .set({ ...sealCredentials(ctx, id, { ...stored, oauth_expires_at: 1 }) })
        .where("id", "=", id)
        .execute();
      const fresh = await freshCredentials(ctx, id);
      assert.equal(provider.tokenRequests.at(-1)!.grant_type, "refresh_token");
      assert.notEqual(fresh.oauth_access_token, stored.oauth_access_token);

      // A refresh that fails is shown with the account until one succeeds.
      const due = async () => {
        const current = await ctx.db.selectFrom("connected_accounts").select("credentials").where("id", "=", id).executeTakeFirstOrThrow();
        const sealed = sealCredentials(ctx, id, { ...openCredentials(ctx, id, current.credentials), oauth_expires_at: 1 });
        await ctx.db.updateTable("connected_accounts").set(sealed).where("id", "=", id).execute();
      };
      await due();
      provider.failTokens = { status: 400, body: { error: "invalid_grant" } };
      await assert.rejects(freshCredentials(ctx, id));
      delete provider.failTokens;
      assert.match(
        (await account.api.get(`/accounts/${id}`)).body.data.refresh_failure,
        /refused the refresh: HTTP 400, error invalid_grant/,
      );
      await due();
      await freshCredentials(ctx, id);
      assert.equal((await account.api.get(`/accounts/${id}`)).body.data.refresh_failure, null);
    });

    it("takes each state once: the same callback again is a 400 and makes no second account", async () => {
      const before = (await account.api.get("/users/me/accounts")).body.data.length;
      const { callback: back } = await consent("allow");
      assert.equal((await callback(back)).status, 303);
      const again = await callback(back);
      assert.equal(again.status, 400);
      assert.match(again.headers.get("content-type") ?? "", /text\/html/);
      assert.match(again.headers.get("content-security-policy") ?? "", /script-src 'self'/);
      assert.match(await again.text(), /unknown or already used state/);
      assert.equal((await account.api.get("/users/me/accounts")).body.data.length, before + 1);
    });

    it("shows denied consent, a missing or forged state and a failing token endpoint as 4xx pages", async () => {
      const before = (await account.api.get("/users/me/accounts")).body.data.length;
      const { callback: denied } = await consent("deny");
      const deniedPage = await callback(denied);
      assert.equal(deniedPage.status, 400);
      assert.match(await deniedPage.text(), /consent was denied at the provider: access_denied \(The user said no\.\)/);

      const noState = await callback(`${app.origin}/oauth/callback?code=abc`);
      assert.equal(noState.status, 400);
      assert.match(await noState.text(), /sent no state/);
      const forged = await callback(`${app.origin}/oauth/callback?code=abc&state=${"A".repeat(43)}`);
      assert.equal(forged.status, 400);

      // Markup in the provider's words is shown as text.
      const { providerUrl } = await consent("deny");
      const state = providerUrl.searchParams.get("state")!;
      const markup = await callback(`${app.origin}/oauth/callback?state=${state}&error=%3Cscript%3Ex%3C%2Fscript%3E`);
      const text = await markup.text();
      assert.ok(!text.includes("<script>x"), text);
      assert.match(text, /&lt;script&gt;x/);

      // A connect older than its expiry is refused (its row's expiry moved to the past).
      const { callback: late } = await consent("allow");
      await app.sluice.services.ctx.db.updateTable("oauth_connects").set({ expires_at: 0 }).where("user_id", "=", account.id).execute();
      const expired = await callback(late);
      assert.equal(expired.status, 400);
      assert.match(await expired.text(), /this connect expired/);

      provider.failTokens = { status: 400, body: { error: "invalid_grant", error_description: "code expired" } };
      try {
        const { callback: back } = await consent("allow");
        const failed = await callback(back);
        assert.equal(failed.status, 400);
        const body = await failed.text();
        assert.match(
          body,
          /testprov was not connected: the token endpoint http:\/\/127\.0\.0\.1:\d+ refused the code exchange: HTTP 400, error invalid_grant \(code expired\)/,
        );
        assert.ok(!body.includes(CLIENT_SECRET));
      } finally {
        delete provider.failTokens;
      }
      assert.equal((await account.api.get("/users/me/accounts")).body.data.length, before);
    });

    it("sends the code exchange through the egress guard", async () => {
      app.config.allowPrivateEgress = false;
      try {
        const { callback: back } = await consent("allow");
        const refused = await callback(back);
        assert.equal(refused.status, 400);
        assert.match(await refused.text(), /SLUICE_ALLOW_PRIVATE_EGRESS/);
      } finally {
        app.config.allowPrivateEgress = true;
      }
    });

    it("answers 404 for an app not configured, and stops connects of a removed app", async () => {
      const unknown = await account.api.get("/accounts/oauth/nosuchapp/start");
      assert.equal(unknown.status, 404);
      assert.match(unknown.body.error, /no OAuth app "nosuchapp" is configured/);
      const { callback: back } = await consent("allow");
      assert.equal((await admin("DELETE", "/admin/oauth_apps/testprov")).status, 204);
      assert.equal((await admin("DELETE", "/admin/oauth_apps/testprov")).status, 404);
      assert.equal((await callback(back)).status, 400);
      assert.equal((await account.api.get("/accounts/oauth/testprov/start")).status, 404);
      assert.deepEqual((await account.api.get("/accounts/oauth_apps")).body.data, []);
      assert.equal((await configure()).status, 200);
    });

    it("refuses to delete an account a source or workflow uses, naming them", async () => {
      const created = await account.api.post("/accounts", { app: "demo", credentials: { api_key: "k-1234" } });
      const id = created.body.data.id;
      const flow = await account.api.post("/workflows", { name: "uses demo", steps: [{ code: "export default { async run() {} };" }] });
      assert.equal(flow.status, 200, flow.text);
      // A step whose props name the account, as a step's app prop is stored.
      const steps = [{ id: "s1", name: "step", code: "export default { async run() {} };", props: { demo: { authProvisionId: id } } }];
      await app.sluice.services.ctx.db
        .updateTable("workflows")
        .set({ steps: JSON.stringify(steps) })
        .where("id", "=", flow.body.data.id)
        .execute();
      const refused = await account.api.delete(`/accounts/${id}`);
      assert.equal(refused.status, 409);
      assert.match(refused.body.error, new RegExp(`used by workflow "uses demo" \\(${flow.body.data.id}\\)`));
      assert.equal((await account.api.delete(`/workflows/${flow.body.data.id}`)).status, 204);
      assert.equal((await account.api.delete(`/accounts/${id}`)).status, 204);
    });
  });
}
