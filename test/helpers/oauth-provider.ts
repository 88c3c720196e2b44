// A small OAuth 2 provider on loopback for tests: an authorization endpoint that checks the
// request (client, redirect URI, state, a PKCE S256 challenge) and shows a consent page (a tiny
// HTML form with Allow and Deny), and a token endpoint that exchanges a code once, only with
// the verifier of its challenge and the client's credentials (HTTP Basic), and refreshes tokens.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  used: boolean;
}

export interface OAuthProvider {
  origin: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Registered clients by id. */
  clients: Map<string, ProviderClient>;
  /** Every token request's form, in order. */
  tokenRequests: Record<string, string>[];
  /** Authorization requests the endpoint refused, and why. */
  refused: string[];
  /** When set, the token endpoint answers this instead. */
  failTokens?: { status: number; body: unknown };
  /** Seconds the access tokens live. */
  expiresIn: number;
  close(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startOAuthProvider(): Promise<OAuthProvider> {
  const codes = new Map<string, PendingCode>();
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider: OAuthProvider = {
    origin,
    authorizeUrl: `${origin}/authorize?prompt=consent`,
    tokenUrl: `${origin}/token`,
    clients: new Map(),
    tokenRequests: [],
    refused: [],
    expiresIn: 3600,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const refuse = (res: ServerResponse, why: string) => {
    provider.refused.push(why);
    res.writeHead(400, { "content-type": "text/plain" }).end(why);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", origin);
    const q = url.searchParams;
    if (url.pathname === "/authorize") {
      const client = provider.clients.get(q.get("client_id") ?? "");
      if (!client) return refuse(res, "unknown client_id");
      if (q.get("response_type") !== "code") return refuse(res, "response_type must be code");
      if (q.get("redirect_uri") !== client.redirectUri) return refuse(res, `redirect_uri ${q.get("redirect_uri")} is not registered`);
      if (!q.get("state")) return refuse(res, "no state");
      if (q.get("code_challenge_method") !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(q.get("code_challenge") ?? ""))
        return refuse(res, "PKCE S256 is required");
      if (q.get("prompt") !== "consent") return refuse(res, "the authorize URL's own query was lost");
      const hidden = ["client_id", "redirect_uri", "state", "code_challenge", "scope"]
        .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(q.get(name) ?? "")}">`)
        .join("");
      const page =
        `<!doctype html><html><head><title>Test provider</title></head><body><h1>Allow Sluice?</h1>` +
        `<p>Scopes: ${escapeHtml(q.get("scope") ?? "")}</p><form method="get" action="/consent">${hidden}` +
        `<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button></form></body></html>`;
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
      return;
    }
    if (url.pathname === "/consent") {
      const back = new URL(q.get("redirect_uri") ?? "");
      back.searchParams.set("state", q.get("state") ?? "");
      if (q.get("decision") === "allow") {
        const code = randomBytes(16).toString("hex");
        codes.set(code, {
          clientId: q.get("client_id")!,
          redirectUri: q.get("redirect_uri")!,
          challenge: q.get("code_challenge")!,
          used: false,
        });
        back.searchParams.set("code", code);
      } else {
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("error_description", "The user said no.");
      }
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let text = "";
      for await (const chunk of req) text += chunk;
      const form = Object.fromEntries(new URLSearchParams(text));
      provider.tokenRequests.push(form);
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (provider.failTokens) return void json(provider.failTokens.status, provider.failTokens.body);
      const [id, secret] = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64")
        .toString()
        .split(":")
        .map(decodeURIComponent);
      const client = provider.clients.get(id ?? "");
      if (!client || client.clientSecret !== secret) return void json(401, { error: "invalid_client" });
      const tokens = () => ({
        access_token: `at-${randomBytes(8).toString("hex")}`,
        refresh_token: `rt-${randomBytes(8).toString("hex")}`,
        token_type: "Bearer",
        expires_in: provider.expiresIn,
      });
      if (form.grant_type === "refresh_token") return void json(200, tokens());
      const pending = codes.get(form.code ?? "");
      if (form.grant_type !== "authorization_code" || !pending || pending.used || pending.clientId !== id)
        return void json(400, { error: "invalid_grant", error_description: "unknown or used code" });
      pending.used = true;
      if (form.redirect_uri !== pending.redirectUri)
        return void json(400, { error: "invalid_grant", error_description: "redirect_uri differs" });
      const challenge = createHash("sha256")
        .update(form.code_verifier ?? "")
        .digest("base64url");
      if (challenge !== pending.challenge)
        return void json(400, { error: "invalid_grant", error_description: "PKCE verifier does not match" });
      return void json(200, tokens());
    }
    res.writeHead(404).end();
  }

  return provider;
}
