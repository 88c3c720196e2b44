// GET /v1/accounts/oauth/{app}/start: the first leg of an OAuth 2 authorization-code connect
// (RFC 6749 §4.1) with PKCE S256 (RFC 7636). The answer is the provider's URL to open; the
// `state` in it is random, single use, expires, and names the user, so the callback needs no
// API key. Only its SHA-256 is stored, with the PKCE verifier sealed.
import { createHash, randomBytes } from "node:crypto";
import type { Actor, Ctx } from "../context.js";
import { ServiceError, invalid } from "../../lib/errors.js";
import { encryptText } from "./credential-cipher.js";
import { findOAuthApp } from "../oauth-apps/manage-oauth-apps.js";

/** How long the user has to consent at the provider. */
export const CONNECT_TTL_MS = 10 * 60_000;
/** Connects in flight per user: each is a row until it is used or expires. */
const MAX_CONNECTS_IN_FLIGHT = 20;

export interface OAuthStart {
  url: string;
  state: string;
  redirect_uri: string;
  expires_at: number;
}

export const hashState = (state: string) => createHash("sha256").update(state, "utf8").digest("base64url");
export const redirectUriOf = (publicUrl: string) => `${publicUrl.replace(/\/+$/, "")}/oauth/callback`;

export async function startOAuthConnect({
  ctx,
  actor,
  app,
  name,
}: {
  ctx: Ctx;
  actor: Actor;
  app: string;
  name?: string | null;
}): Promise<OAuthStart> {
  if (!ctx.credentialKey) throw new Error("this context has no credential key");
  const config = await findOAuthApp(ctx, app);
  const accountName = name?.trim() || null;
  if (accountName && accountName.length > 256) throw invalid("name is longer than 256 characters");
  const now = ctx.clock.now();
  await ctx.db.deleteFrom("oauth_connects").where("expires_at", "<", now).execute();
  const inFlight = await ctx.db
    .selectFrom("oauth_connects")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("user_id", "=", actor.userId)
    .executeTakeFirstOrThrow();
  if (Number(inFlight.n) >= MAX_CONNECTS_IN_FLIGHT)
    throw new ServiceError("LIMIT_EXCEEDED", `at most ${MAX_CONNECTS_IN_FLIGHT} connects may wait for the provider at once`, {
      retryAfterSeconds: CONNECT_TTL_MS / 1000,
    });

  const state = randomBytes(32).toString("base64url");
  const verifier = randomBytes(32).toString("base64url"); // 43 characters, §4.1 of RFC 7636
  const stateHash = hashState(state);
  const expiresAt = now + CONNECT_TTL_MS;
  await ctx.db
    .insertInto("oauth_connects")
    .values({
      state_hash: stateHash,
      user_id: actor.userId,
      app: config.app,
      name: accountName,
      code_verifier: encryptText(ctx.credentialKey, verifier, stateHash),
      expires_at: expiresAt,
    })
    .execute();

  const redirectUri = redirectUriOf(ctx.config.publicUrl);
  const url = new URL(config.authorizeUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", config.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  if (config.scopes.length > 0) url.searchParams.set("scope", config.scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", createHash("sha256").update(verifier, "ascii").digest("base64url"));
  url.searchParams.set("code_challenge_method", "S256");
  return { url: url.toString(), state, redirect_uri: redirectUri, expires_at: Math.floor(expiresAt / 1000) };
}
