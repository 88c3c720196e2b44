// SLUICE_PUBLIC_URL/oauth/callback: the provider sends the user back with `code` and `state`
// (or `error`). The state is looked up by its hash and deleted in the same step, so it works
// once; an expired one is refused. The code and the PKCE verifier are exchanged at the app's
// token endpoint through the egress guard, and the tokens become a connected account holding
// what the refresh needs (oauth-refresh.ts): the token URL and the client.
import type { Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import { findOAuthApp } from "../oauth-apps/manage-oauth-apps.js";
import { accountView, type AccountView } from "./account-view.js";
import { newAccountRow } from "./account-row.js";
import { decryptText } from "./credential-cipher.js";
import { hashState, redirectUriOf } from "./oauth-connect-start.js";
import { withoutSecrets } from "./oauth-refresh.js";
import { OAuthRefreshError, requestCodeExchange, type TokenGrant } from "./oauth-token-request.js";

export interface OAuthCallback {
  state?: string;
  code?: string;
  error?: string;
  error_description?: string;
}

/** Printable ASCII only, and short: the provider's words are shown to the user as text. */
const plain = (text: string, max: number) =>
  text
    .replace(/[^\x20-\x7e]/g, " ")
    .trim()
    .slice(0, max);

export async function finishOAuthConnect({ ctx, input }: { ctx: Ctx; input: OAuthCallback }): Promise<AccountView> {
  if (!input.state) throw invalid("the provider sent no state: start the connect again from the dashboard");
  const stateHash = hashState(input.state);
  const pending = await ctx.db.selectFrom("oauth_connects").selectAll().where("state_hash", "=", stateHash).executeTakeFirst();
  const taken = pending && (await ctx.db.deleteFrom("oauth_connects").where("state_hash", "=", stateHash).executeTakeFirst());
  if (!pending || Number(taken?.numDeletedRows ?? 0) !== 1)
    throw invalid("unknown or already used state: start the connect again from the dashboard");
  if (Number(pending.expires_at) < ctx.clock.now()) throw invalid("this connect expired: start it again from the dashboard");
  if (input.error) {
    const description = input.error_description ? ` (${plain(input.error_description, 200)})` : "";
    const denied = input.error === "access_denied" ? "consent was denied at the provider: " : "the provider refused: ";
    throw invalid(`${pending.app} was not connected: ${denied}${plain(input.error, 64)}${description}`);
  }
  if (!input.code) throw invalid(`${pending.app} was not connected: the provider sent no code`);
  if (!ctx.credentialKey) throw new Error("this context has no credential key");
  const verifier = decryptText(ctx.credentialKey, pending.code_verifier, stateHash);
  if (verifier === undefined) throw new Error("the PKCE verifier of a connect does not decrypt");

  const app = await findOAuthApp(ctx, pending.app).catch((error: unknown) => {
    if (error instanceof ServiceError && error.code === "NOT_FOUND") throw invalid(`the OAuth app ${pending.app} is no longer configured`);
    throw error;
  });
  let grant: TokenGrant;
  try {
    grant = await requestCodeExchange(
      {
        tokenUrl: app.tokenUrl,
        code: input.code,
        redirectUri: redirectUriOf(ctx.config.publicUrl),
        codeVerifier: verifier,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
      },
      { allowPrivate: ctx.config.allowPrivateEgress, hostAddresses: ctx.hostAddresses },
    );
  } catch (error) {
    const reason = error instanceof OAuthRefreshError ? error.message : "the code exchange failed unexpectedly";
    const secrets = { code: input.code, verifier, secret: app.clientSecret ?? "" };
    throw invalid(`${app.app} was not connected: ${withoutSecrets(reason, secrets)}`);
  }

  const credentials: Record<string, unknown> = {
    oauth_access_token: grant.accessToken,
    oauth_token_url: app.tokenUrl,
    oauth_client_id: app.clientId,
  };
  if (grant.refreshToken !== undefined) credentials.oauth_refresh_token = grant.refreshToken;
  if (grant.expiresIn !== undefined) credentials.oauth_expires_at = Math.floor(ctx.clock.now() / 1000 + grant.expiresIn);
  if (app.clientSecret !== undefined) credentials.oauth_client_secret = app.clientSecret;
  const row = newAccountRow(ctx, { userId: pending.user_id, app: app.app, name: pending.name, credentials, origin: null });
  await ctx.db.insertInto("connected_accounts").values(row).execute();
  ctx.logger.info({ accountId: row.id, app: app.app }, "connected an account by OAuth");
  return accountView(ctx.config.publicUrl, row);
}
