// One OAuth 2 token request: a refresh (RFC 6749 §6) or the exchange of an authorization code
// (§4.1.3, with the PKCE verifier of RFC 7636). A form-encoded POST to the token endpoint,
// the client authenticated with HTTP Basic when it has a secret (§2.3.1, which every server
// must support) or named by `client_id` in the form when it has none (a public client). The
// request goes through the egress guard like every outbound request of the service, is not
// redirected, and has a time limit and a cap on the answer. Failures are OAuthRefreshErrors
// whose messages say what happened (status, the OAuth `error` code, a short description) and
// never carry the request's secrets; the caller still scrubs them of every credential value.
import http from "node:http";
import https from "node:https";
import { assertEgressAllowed, EgressRefusedError, guardedLookup, type AddressSet } from "../../egress/egress-guard.js";
import { systemHostAddresses } from "../../egress/host-addresses.js";

export const TOKEN_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;

export class OAuthRefreshError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OAuthRefreshError";
  }
}

export interface RefreshRequest {
  tokenUrl: string;
  refreshToken: string;
  clientId?: string;
  clientSecret?: string;
}

export interface TokenGrant {
  accessToken: string;
  /** Seconds the new access token lives, when the server said. */
  expiresIn?: number;
  /** A new refresh token, when the server rotates them. */
  refreshToken?: string;
}

export interface TokenRequestOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** The host's own addresses, refused like private ones (the system's interfaces by default). */
  hostAddresses?: AddressSet;
}

export function requestTokenRefresh(request: RefreshRequest, options: TokenRequestOptions): Promise<TokenGrant> {
  return requestToken(
    { ...request, grant: { grant_type: "refresh_token", refresh_token: request.refreshToken }, purpose: "refresh" },
    options,
  );
}

export interface CodeExchangeRequest {
  tokenUrl: string;
  code: string;
  redirectUri: string;
  codeVerifier: string;
  clientId: string;
  clientSecret?: string;
}

/** The tokens an authorization code (and its PKCE verifier) is worth. */
export function requestCodeExchange(request: CodeExchangeRequest, options: TokenRequestOptions): Promise<TokenGrant> {
  const grant = {
    grant_type: "authorization_code",
    code: request.code,
    redirect_uri: request.redirectUri,
    code_verifier: request.codeVerifier,
  };
  return requestToken({ ...request, grant, purpose: "code exchange" }, options);
}

interface TokenRequest {
  tokenUrl: string;
  grant: Record<string, string>;
  clientId?: string;
  clientSecret?: string;
  /** Named in messages: "… refused the <purpose>". */
  purpose: string;
}

async function requestToken(request: TokenRequest, options: TokenRequestOptions): Promise<TokenGrant> {
  let url: URL;
  try {
    url = new URL(request.tokenUrl);
  } catch {
    throw new OAuthRefreshError("oauth_token_url is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OAuthRefreshError("oauth_token_url must use http or https");
  // The URL's text is a credential field; only its origin is named in messages.
  const where = `the token endpoint ${url.protocol}//${url.host}`;
  const form = new URLSearchParams(request.grant);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  if (request.clientSecret !== undefined) {
    // §2.3.1: the id and secret are form-encoded before they are joined for Basic.
    const pair = `${formEncode(request.clientId ?? "")}:${formEncode(request.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
  } else if (request.clientId !== undefined) {
    form.set("client_id", request.clientId);
  }
  let answer: { status: number; body: string };
  try {
    await assertEgressAllowed(url, options.allowPrivate, options.hostAddresses ?? systemHostAddresses());
    answer = await post(url, form.toString(), headers, options);
  } catch (error) {
    throw new OAuthRefreshError(`${where} could not be reached: ${networkReason(error, options.timeoutMs ?? TOKEN_TIMEOUT_MS)}`);
  }
  return grantOf(answer, where, request.purpose);
}

const formEncode = (text: string) => new URLSearchParams({ x: text }).toString().slice(2);

function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof EgressRefusedError) return `${error.message} (egress guard; SLUICE_ALLOW_PRIVATE_EGRESS is off)`;
  if (error instanceof OAuthRefreshError) return error.message;
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ETIMEDOUT") return `no answer within ${timeoutMs / 1000} s`;
  return code ?? "network error";
}

function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: TokenRequestOptions,
): Promise<{ status: number; body: string }> {
  const client = url.protocol === "https:" ? https : http;
  const timeoutMs = options.timeoutMs ?? TOKEN_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(options.allowPrivate, options.hostAddresses ?? systemHostAddresses()) as never,
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) request.destroy(new OAuthRefreshError(`the answer is larger than ${MAX_ANSWER_BYTES / 1024} KB`));
          else chunks.push(chunk);
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    // The whole exchange, not only idle time, is bounded.
    const timer = setTimeout(() => request.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })), timeoutMs);
    request.on("close", () => clearTimeout(timer));
    request.on("timeout", () => request.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
    request.on("error", reject);
    request.end(body);
  });
}

function grantOf(answer: { status: number; body: string }, where: string, purpose: string): TokenGrant {
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(answer.body);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  const ok = answer.status >= 200 && answer.status <= 299;
  if (!ok || (json && typeof json.error === "string" && typeof json.access_token !== "string")) {
    throw new OAuthRefreshError(`${where} refused the ${purpose}: HTTP ${answer.status}${oauthError(json)}`);
  }
  if (!json) throw new OAuthRefreshError(`${where} answered HTTP ${answer.status} with a body that is not a JSON object`);
  if (typeof json.access_token !== "string" || json.access_token === "")
    throw new OAuthRefreshError(`${where} answered HTTP ${answer.status} without an access_token`);
  const grant: TokenGrant = { accessToken: json.access_token };
  const expiresIn = typeof json.expires_in === "string" ? Number(json.expires_in) : json.expires_in;
  if (typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0) grant.expiresIn = expiresIn;
  if (typeof json.refresh_token === "string" && json.refresh_token !== "") grant.refreshToken = json.refresh_token;
  return grant;
}

/** The OAuth error code (RFC 6749 §5.2 limits its characters) and a short, plain description. */
function oauthError(json: Record<string, unknown> | undefined): string {
  if (!json) return "";
  const code = typeof json.error === "string" && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(json.error) ? json.error : undefined;
  const rawDescription = typeof json.error_description === "string" ? json.error_description : undefined;
  const description = rawDescription
    ?.replace(/[^\x20-\x7e]/g, " ")
    .trim()
    .slice(0, 200);
  if (!code) return "";
  return `, error ${code}${description ? ` (${description})` : ""}`;
}
