// The OAuth refresh request and the rules around it, without an app: when a token is due, what
// counts as a grant, and how each failure of the token endpoint is worded (time limit, size
// cap, not JSON, an error in a 200, bad URLs), never with a secret in it.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { isDueForRefresh, refreshRequestOf, withoutSecrets } from "../../src/domain/accounts/oauth-refresh.js";
import { OAuthRefreshError, requestTokenRefresh } from "../../src/domain/accounts/oauth-token-request.js";

const NOW_MS = Date.UTC(2026, 0, 1);
const NOW = NOW_MS / 1000;

describe("OAuth refresh rules", () => {
  it("takes part only with a refresh token and a token URL; due when the access token is missing or expires within a minute", () => {
    const base = { oauth_refresh_token: "r", oauth_token_url: "https://auth.example/token", oauth_access_token: "a" };
    assert.equal(refreshRequestOf({ oauth_refresh_token: "r" }), undefined);
    assert.equal(refreshRequestOf({ oauth_token_url: "https://auth.example/token", oauth_refresh_token: "" }), undefined);
    assert.deepEqual(refreshRequestOf({ ...base, oauth_client_id: "id", oauth_client_secret: "s" }), {
      tokenUrl: base.oauth_token_url,
      refreshToken: "r",
      clientId: "id",
      clientSecret: "s",
    });
    assert.equal(isDueForRefresh({ api_key: "k", oauth_expires_at: 0 }, NOW_MS), false, "nothing to refresh with");
    assert.equal(isDueForRefresh(base, NOW_MS), false, "no expiry: used as it is");
    assert.equal(isDueForRefresh({ ...base, oauth_access_token: "" }, NOW_MS), true);
    assert.equal(isDueForRefresh({ ...base, oauth_expires_at: NOW - 1 }, NOW_MS), true);
    assert.equal(isDueForRefresh({ ...base, oauth_expires_at: NOW + 60 }, NOW_MS), true, "within the margin");
    assert.equal(isDueForRefresh({ ...base, oauth_expires_at: NOW + 61 }, NOW_MS), false);
    assert.equal(isDueForRefresh({ ...base, oauth_expires_at: String(NOW - 5) }, NOW_MS), true, "a numeric string counts");
    assert.equal(isDueForRefresh({ ...base, oauth_expires_at: "soon" }, NOW_MS), false);
  });

  it("blanks every credential value out of a message", () => {
    const message = withoutSecrets("refresh token r-123456 of client-secret-9 refused; id eu", {
      oauth_refresh_token: "r-123456",
      oauth_client_secret: "client-secret-9",
      region: "eu",
      n: 5,
    });
    assert.equal(message, "refresh token [redacted] of [redacted] refused; id eu");
  });
});

describe("the OAuth token request", () => {
  let server: Server;
  let base: string;
  let route: (path: string, send: (status: number, body: string) => void) => void;
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => route(req.url ?? "", (status, body) => res.writeHead(status, { "content-type": "application/json" }).end(body)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const refresh = (path: string, options: { timeoutMs?: number } = {}) =>
    requestTokenRefresh({ tokenUrl: `${base}${path}`, refreshToken: "rt-secret-42" }, { allowPrivate: true, ...options });
  const fails = (promise: Promise<unknown>, message: RegExp) =>
    assert.rejects(
      promise,
      (error: Error) => error instanceof OAuthRefreshError && message.test(error.message) && !error.message.includes("rt-secret-42"),
    );

  it("reads a grant: the access token, expires_in (also as a string) and a rotated refresh token", async () => {
    route = (_path, send) => send(200, JSON.stringify({ access_token: "at", expires_in: "3600", refresh_token: "rt2", scope: "x" }));
    assert.deepEqual(await refresh("/token"), { accessToken: "at", expiresIn: 3600, refreshToken: "rt2" });
  });

  it("words each failure of the endpoint", async () => {
    route = (path, send) => {
      if (path === "/hang") return; // never answers
      if (path === "/big") return send(200, JSON.stringify({ access_token: "x".repeat(70 * 1024) }));
      if (path === "/html") return send(200, "<html>oops</html>");
      if (path === "/slack") return send(200, JSON.stringify({ ok: false, error: "invalid_refresh_token" }));
      if (path === "/empty") return send(200, JSON.stringify({ token_type: "bearer" }));
      if (path === "/weird") return send(401, JSON.stringify({ error: "bad\nline" }));
      send(503, "busy");
    };
    await fails(
      refresh("/hang", { timeoutMs: 300 }),
      /^the token endpoint http:\/\/127\.0\.0\.1:\d+ could not be reached: no answer within 0\.3 s$/,
    );
    await fails(refresh("/big"), /could not be reached: the answer is larger than 64 KB/);
    await fails(refresh("/html"), /answered HTTP 200 with a body that is not a JSON object/);
    await fails(refresh("/slack"), /refused the refresh: HTTP 200, error invalid_refresh_token$/);
    await fails(refresh("/empty"), /answered HTTP 200 without an access_token/);
    await fails(refresh("/weird"), /refused the refresh: HTTP 401$/);
    await fails(refresh("/busy"), /refused the refresh: HTTP 503$/);
    await fails(
      requestTokenRefresh({ tokenUrl: "not a url", refreshToken: "rt-secret-42" }, { allowPrivate: true }),
      /oauth_token_url is not a valid URL/,
    );
    await fails(
      requestTokenRefresh({ tokenUrl: "ftp://auth.example/token", refreshToken: "rt-secret-42" }, { allowPrivate: true }),
      /must use http or https/,
    );
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    await fails(
      requestTokenRefresh({ tokenUrl: `http://127.0.0.1:${closedPort}/token`, refreshToken: "rt-secret-42" }, { allowPrivate: true }),
      /could not be reached: ECONNREFUSED/,
    );
    await fails(
      requestTokenRefresh({ tokenUrl: "http://169.254.169.254/token", refreshToken: "rt-secret-42" }, { allowPrivate: false }),
      /could not be reached: egress to a private or loopback address is refused/,
    );
  });
});
