// OAuth 2 refresh of connected accounts against a loopback token endpoint: an expired token is
// refreshed before the run (Basic client authentication, the new tokens stored encrypted, a
// rotated refresh token kept); a token that is not due sends nothing; a refused refresh stops
// the run with an $errors event naming the OAuth error and no secret; many concurrent runs
// (and another process's worth of callers) make one token request; a token endpoint on a
// private address is refused when private egress is off. No token shows in any answer or log.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { openCredentials } from "../../src/domain/accounts/credentials.js";
import { freshCredentials } from "../../src/domain/accounts/oauth-refresh.js";
import { runTimer } from "../../src/domain/sources/source-jobs.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTokenServer, type TokenServer } from "../helpers/oauth-token-server.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, waitForEvents } from "../fixtures/components/sources/helpers.js";

// Answers with the access token it was given, and leaves a log line to show that it ran.
const PROBE = `export default {
  key: "oauth-probe",
  props: { demo: { type: "app", app: "demo" }, http: { type: "$.interface.http", customResponse: true } },
  async run() {
    console.log("probe ran");
    this.http.respond({ status: 200, body: { token: this.demo.$auth.oauth_access_token } });
  },
};`;

let serial = 0;
/** Secrets unique to one test, so that finding one anywhere points at its test. */
function secrets() {
  const n = `${process.pid}-${++serial}`;
  return {
    oldAccess: `old-access-${n}`,
    refresh: `refresh-${n}-r1`,
    rotated: `refresh-${n}-r2`,
    newAccess: `new-access-${n}`,
    clientSecret: `client-secret-${n}`,
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

for (const dialect of DIALECTS) {
  describe(`OAuth refresh of connected accounts [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let tokens: TokenServer;
    const logLines: string[] = [];
    const shown: string[] = []; // every secret a test used, checked against the logs at the end

    before(async () => {
      tokens = await startTokenServer();
      const logger = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });
      app = await startTestApp(dialect, { allowPrivateEgress: true }, { logger });
      account = await app.newAccount();
    });
    after(async () => {
      await app.close();
      await tokens.close();
      const logs = logLines.join("");
      assert.ok(logs.includes("refreshed the OAuth token"), "the logs say a refresh happened");
      for (const secret of shown) assert.ok(!logs.includes(secret), `a log line shows a credential: ${secret}`);
    });

    const noSecret = (text: string, s: ReturnType<typeof secrets>) => {
      for (const secret of Object.values(s)) assert.ok(!text.includes(secret), `an answer shows ${secret}: ${text}`);
    };

    async function connect(credentials: Record<string, unknown>, s: ReturnType<typeof secrets>): Promise<string> {
      shown.push(...Object.values(s));
      const created = await account.api.post("/accounts", { app: "demo", credentials });
      assert.equal(created.status, 200, created.text);
      noSecret(created.text, s);
      return created.body.data.id;
    }

    const call = async (source: any) => {
      const res = await fetch(source.configured_props.http.endpoint_url, { method: "POST" });
      return { status: res.status, body: (await res.json()) as any };
    };

    async function stored(accountId: string): Promise<Record<string, unknown>> {
      const ctx = app.sluice.services.ctx;
      const row = await ctx.db
        .selectFrom("connected_accounts")
        .select(["id", "credentials"])
        .where("id", "=", accountId)
        .executeTakeFirstOrThrow();
      return openCredentials(ctx, row.id, row.credentials);
    }

    it("refreshes an expired token before the run, stores the new tokens encrypted and keeps a rotated refresh token", async () => {
      const s = secrets();
      const accountId = await connect(
        {
          oauth_access_token: s.oldAccess,
          oauth_refresh_token: s.refresh,
          oauth_token_url: tokens.url,
          oauth_client_id: "client-1",
          oauth_client_secret: s.clientSecret,
          oauth_expires_at: nowSeconds() - 10,
        },
        s,
      );
      const source = await createSource(account.api, { component_code: PROBE, configured_props: { demo: { authProvisionId: accountId } } });
      const before = tokens.requests.length;
      tokens.answer = () => ({
        status: 200,
        body: { access_token: s.newAccess, token_type: "Bearer", expires_in: 3600, refresh_token: s.rotated },
      });

      assert.deepEqual(await call(source), { status: 200, body: { token: s.newAccess } });
      const sent = tokens.requests.slice(before);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.method, "POST");
      assert.equal(sent[0]!.headers["content-type"], "application/x-www-form-urlencoded");
      assert.deepEqual(sent[0]!.form, { grant_type: "refresh_token", refresh_token: s.refresh });
      assert.equal(sent[0]!.headers.authorization, `Basic ${Buffer.from(`client-1:${s.clientSecret}`).toString("base64")}`);

      const now = await stored(accountId);
      assert.equal(now.oauth_access_token, s.newAccess);
      assert.equal(now.oauth_refresh_token, s.rotated);
      assert.ok(Math.abs(Number(now.oauth_expires_at) - (nowSeconds() + 3600)) <= 5, `expires_at ${now.oauth_expires_at}`);
      const row = await app.sluice.services.ctx.db
        .selectFrom("connected_accounts")
        .select("credentials")
        .where("id", "=", accountId)
        .executeTakeFirstOrThrow();
      noSecret(row.credentials, s);

      // The new token is good for an hour: the next runs send nothing.
      assert.deepEqual(await call(source), { status: 200, body: { token: s.newAccess } });
      assert.equal(tokens.requests.length, before + 1);
      for (const path of [
        `/accounts/${accountId}`,
        "/users/me/accounts",
        `/sources/${source.id}`,
        `/sources/${source.id}/event_summaries?expand=event`,
      ]) {
        const res = await account.api.get(path);
        assert.equal(res.status, 200, path);
        noSecret(res.text, s);
      }
    });

    it("names a public client in the form, keeps the refresh token the server did not rotate, and forgets an expiry it was not told", async () => {
      const s = secrets();
      const accountId = await connect({ oauth_refresh_token: s.refresh, oauth_token_url: tokens.url, oauth_client_id: "public-client" }, s);
      const source = await createSource(account.api, { component_code: PROBE, configured_props: { demo: { authProvisionId: accountId } } });
      const before = tokens.requests.length;
      tokens.answer = () => ({ status: 200, body: { access_token: s.newAccess, token_type: "Bearer" } });
      assert.deepEqual(await call(source), { status: 200, body: { token: s.newAccess } });
      const sent = tokens.requests.slice(before);
      assert.equal(sent.length, 1, "no access token at all is due");
      assert.deepEqual(sent[0]!.form, { grant_type: "refresh_token", refresh_token: s.refresh, client_id: "public-client" });
      assert.equal(sent[0]!.headers.authorization, undefined);
      const now = await stored(accountId);
      assert.deepEqual(
        { ...now },
        { oauth_refresh_token: s.refresh, oauth_token_url: tokens.url, oauth_client_id: "public-client", oauth_access_token: s.newAccess },
      );
      assert.deepEqual(await call(source), { status: 200, body: { token: s.newAccess } });
      assert.equal(tokens.requests.length, before + 1, "an access token of unknown life is used as it is");
    });

    it("sends nothing for a token that is not due", async () => {
      const s = secrets();
      const accountId = await connect(
        {
          oauth_access_token: s.oldAccess,
          oauth_refresh_token: s.refresh,
          oauth_token_url: tokens.url,
          oauth_expires_at: nowSeconds() + 600,
        },
        s,
      );
      const source = await createSource(account.api, { component_code: PROBE, configured_props: { demo: { authProvisionId: accountId } } });
      const before = tokens.requests.length;
      tokens.answer = () => assert.fail("no token request expected");
      assert.deepEqual(await call(source), { status: 200, body: { token: s.oldAccess } });
      assert.equal(tokens.requests.length, before);
    });

    it("a refused refresh (invalid_grant) stops the run with an $errors event naming it, without any secret", async () => {
      const s = secrets();
      const accountId = await connect(
        {
          oauth_access_token: s.oldAccess,
          oauth_refresh_token: s.refresh,
          oauth_token_url: tokens.url,
          oauth_client_id: "client-1",
          oauth_client_secret: s.clientSecret,
          oauth_expires_at: nowSeconds() - 1,
        },
        s,
      );
      const source = await createSource(account.api, { component_code: PROBE, configured_props: { demo: { authProvisionId: accountId } } });
      // A careless server even echoes the refresh token in its description.
      tokens.answer = (request) => ({
        status: 400,
        body: { error: "invalid_grant", error_description: `refresh token ${request.form.refresh_token} was revoked` },
      });

      const answer = await call(source);
      assert.equal(answer.status, 500);
      assert.match(answer.body.error, /could not be refreshed.*HTTP 400, error invalid_grant/);
      noSecret(JSON.stringify(answer.body), s);

      const [failure] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors" });
      assert.equal(failure.event.error.name, "OAuthRefreshError");
      assert.match(
        failure.event.error.message,
        new RegExp(
          `connected account ${accountId} \\(prop demo\\) could not be refreshed: the token endpoint http://127\\.0\\.0\\.1:\\d+ refused the refresh: HTTP 400, error invalid_grant \\(refresh token \\[redacted\\] was revoked\\); the source did not run`,
        ),
      );
      const errors = await account.api.get(`/sources/${source.id}/event_summaries`, { event_name: "$errors", expand: "event" });
      noSecret(errors.text, s);
      const logs = await account.api.get(`/sources/${source.id}/event_summaries`, { event_name: "$logs", expand: "event" });
      assert.equal(logs.body.data.length, 0, "the code did not run with the expired token");
      const now = await stored(accountId);
      assert.equal(now.oauth_access_token, s.oldAccess, "nothing stored");
      assert.equal(now.oauth_refresh_token, s.refresh);
    });

    it("many concurrent runs of sources bound to one account, and callers in another process, make one token request", async () => {
      const s = secrets();
      const accountId = await connect(
        {
          oauth_access_token: s.oldAccess,
          oauth_refresh_token: s.refresh,
          oauth_token_url: tokens.url,
          oauth_client_id: "client-1",
          oauth_client_secret: s.clientSecret,
          oauth_expires_at: nowSeconds() - 100,
        },
        s,
      );
      const sources = await Promise.all(
        Array.from({ length: 4 }, () =>
          createSource(account.api, { component_code: PROBE, configured_props: { demo: { authProvisionId: accountId } } }),
        ),
      );
      const before = tokens.requests.length;
      tokens.answer = () => ({
        status: 200,
        body: { access_token: s.newAccess, expires_in: 3600, refresh_token: s.rotated },
        delayMs: 300,
      });
      // A context with in-process state of its own stands for another process: it meets the
      // first caller only at the lease on the account's row. On PostgreSQL a second Sluice on
      // the same database joins in as well.
      const ctx = app.sluice.services.ctx;
      const elsewhere = { ...ctx, oauthRefreshes: new Map() };
      const other =
        dialect === "postgres"
          ? await startTestApp(dialect, { allowPrivateEgress: true }, { roles: ["worker"], database: app.database })
          : undefined;
      try {
        const runs = [...sources, ...sources].map((source) => call(source));
        const outside = [freshCredentials(elsewhere, accountId), freshCredentials({ ...ctx, oauthRefreshes: new Map() }, accountId)];
        if (other) outside.push(freshCredentials(other.sluice.services.ctx, accountId));
        const answers = await Promise.all(runs);
        for (const answer of answers) assert.deepEqual(answer, { status: 200, body: { token: s.newAccess } });
        for (const credentials of await Promise.all(outside)) assert.equal(credentials.oauth_access_token, s.newAccess);
      } finally {
        await other?.close();
      }
      assert.equal(tokens.requests.length - before, 1, "one token request");
      assert.equal((await stored(accountId)).oauth_refresh_token, s.rotated);
    });

    it("a deploy hook and a timer run get a refreshed token too", async () => {
      const s = secrets();
      const code = `export default {
        key: "oauth-hooks",
        props: { demo: { type: "app", app: "demo" }, timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } },
        hooks: { async deploy() { this.$emit({ in: "deploy", reversed: [...this.demo.$auth.oauth_access_token].reverse().join("") }); } },
        async run() { this.$emit({ in: "run", reversed: [...this.demo.$auth.oauth_access_token].reverse().join("") }); },
      };`;
      const reversed = (token: string) => [...token].reverse().join("");
      const expired = {
        oauth_access_token: s.oldAccess,
        oauth_refresh_token: s.refresh,
        oauth_token_url: tokens.url,
        oauth_expires_at: nowSeconds() - 5,
      };
      const accountId = await connect(expired, s);
      const before = tokens.requests.length;
      tokens.answer = () => ({ status: 200, body: { access_token: s.newAccess, expires_in: 3600 } });
      const source = await createSource(account.api, { component_code: code, configured_props: { demo: { authProvisionId: accountId } } });
      const [deployed] = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(deployed.event, { in: "deploy", reversed: reversed(s.newAccess) });

      const later = `${s.newAccess}-later`;
      shown.push(later);
      assert.equal((await account.api.put(`/accounts/${accountId}`, { credentials: expired })).status, 200);
      tokens.answer = () => ({ status: 200, body: { access_token: later, expires_in: 3600 } });
      await runTimer(
        { ctx: app.sluice.services.ctx, runner: app.sluice.services.runner },
        { sourceId: source.id, timestamp: nowSeconds() },
      );
      const [ran] = await waitForEvents(account.api, source.id, 2);
      assert.deepEqual(ran.event, { in: "run", reversed: reversed(later) });
      assert.equal(tokens.requests.length - before, 2);
    });

    it("a token endpoint on a private address is refused when private egress is off, saying so on $errors", async () => {
      const closed = await startTestApp(dialect, { allowPrivateEgress: false });
      try {
        const owner = await closed.newAccount();
        for (const host of ["127.0.0.1", "localhost"]) {
          const s = secrets();
          shown.push(...Object.values(s));
          const url = `http://${host}:${tokens.port}/token`;
          const created = await owner.api.post("/accounts", {
            app: "demo",
            credentials: {
              oauth_access_token: s.oldAccess,
              oauth_refresh_token: s.refresh,
              oauth_token_url: url,
              oauth_expires_at: nowSeconds() - 1,
            },
          });
          const source = await createSource(owner.api, {
            component_code: PROBE,
            configured_props: { demo: { authProvisionId: created.body.data.id } },
          });
          const before = tokens.requests.length;
          const res = await fetch(source.configured_props.http.endpoint_url, { method: "POST" });
          assert.equal(res.status, 500);
          const [failure] = await waitForEvents(owner.api, source.id, 1, { event_name: "$errors" });
          assert.match(
            failure.event.error.message,
            new RegExp(
              `the token endpoint http://${host}:\\d+ could not be reached: egress to a private or loopback address is refused \\(egress guard; SLUICE_ALLOW_PRIVATE_EGRESS is off\\)`,
            ),
          );
          assert.equal(tokens.requests.length, before, "nothing reached the token endpoint");
        }
      } finally {
        await closed.close();
      }
    });
  });
}
