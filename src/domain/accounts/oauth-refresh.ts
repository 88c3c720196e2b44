// OAuth 2 tokens of connected accounts, refreshed before a run would use an expired one.
// Credentials take part when they hold `oauth_refresh_token` and `oauth_token_url`; the access
// token is due when `oauth_access_token` is missing or `oauth_expires_at` (Unix seconds) is
// within a minute. Without `oauth_expires_at` the token's life is unknown and it is used as it
// is: refreshing before every run would hammer the token endpoint.
//
// One refresh at a time per account: callers in this process share one promise (the
// context's `oauthRefreshes`), and processes sharing the database take a lease on the account's
// row; whoever does not hold it polls the row until the holder has stored new tokens or
// recorded why it failed, and then uses that result instead of asking again.
import { randomBytes } from "node:crypto";
import type { Ctx } from "../context.js";
import { openCredentials, sealCredentials } from "./credentials.js";
import { OAuthRefreshError, requestTokenRefresh, TOKEN_TIMEOUT_MS, type RefreshRequest } from "./oauth-token-request.js";

export { OAuthRefreshError };

const EXPIRY_MARGIN_SECONDS = 60;
/** Longer than the token request may take, so a live holder never loses it. */
const LEASE_MS = TOKEN_TIMEOUT_MS * 3;

type Credentials = Record<string, unknown>;

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** What a refresh of these credentials would send, or undefined when they take no part. */
export function refreshRequestOf(credentials: Credentials): RefreshRequest | undefined {
  const refreshToken = text(credentials.oauth_refresh_token);
  const tokenUrl = text(credentials.oauth_token_url);
  if (!refreshToken || !tokenUrl) return undefined;
  const request: RefreshRequest = { tokenUrl, refreshToken };
  const clientId = text(credentials.oauth_client_id);
  const clientSecret = text(credentials.oauth_client_secret);
  if (clientId !== undefined) request.clientId = clientId;
  if (clientSecret !== undefined) request.clientSecret = clientSecret;
  return request;
}

export function isDueForRefresh(credentials: Credentials, nowMs: number): boolean {
  if (!refreshRequestOf(credentials)) return false;
  if (!text(credentials.oauth_access_token)) return true;
  const raw = credentials.oauth_expires_at;
  const expiresAt = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  if (typeof expiresAt !== "number" || !Number.isFinite(expiresAt)) return false;
  return expiresAt <= nowMs / 1000 + EXPIRY_MARGIN_SECONDS;
}

/** The account's credentials, refreshed first when due; an OAuthRefreshError when that failed. */
export function freshCredentials(ctx: Ctx, accountId: string): Promise<Credentials> {
  const inflight = ctx.oauthRefreshes.get(accountId);
  if (inflight) return inflight;
  const promise = refreshOnce(ctx, accountId).finally(() => ctx.oauthRefreshes.delete(accountId));
  ctx.oauthRefreshes.set(accountId, promise);
  return promise;
}

async function refreshOnce(ctx: Ctx, accountId: string): Promise<Credentials> {
  const owner = randomBytes(12).toString("base64url");
  // How long to wait is real elapsed time, not the injected clock, which stamps data (and may stand still in tests).
  const giveUpAt = performance.now() + LEASE_MS * 2;
  let waited = false;
  let delay = 10;
  for (;;) {
    const row = await readAccount(ctx, accountId);
    if (!row) throw new OAuthRefreshError(`connected account ${accountId} no longer exists`);
    const credentials = openCredentials(ctx, accountId, row.credentials);
    if (!isDueForRefresh(credentials, ctx.clock.now())) return credentials;
    // The holder we waited for failed: its reason is ours (taking the lease clears it).
    if (waited && row.refresh_failure && !leaseHeld(ctx, row)) throw new OAuthRefreshError(row.refresh_failure);
    if (await takeLease(ctx, accountId, owner)) {
      try {
        const done = await refreshHoldingLease(ctx, accountId);
        if (done) return done;
        continue; // the credentials were replaced meanwhile: look at them again
      } finally {
        await releaseLease(ctx, accountId, owner);
      }
    }
    waited = true;
    if (performance.now() > giveUpAt) throw new OAuthRefreshError("another refresh of this account's token did not finish in time");
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 200);
  }
}

function readAccount(ctx: Ctx, accountId: string) {
  return ctx.db
    .selectFrom("connected_accounts")
    .select(["credentials", "refresh_lease_until", "refresh_failure"])
    .where("id", "=", accountId)
    .executeTakeFirst();
}

const leaseHeld = (ctx: Ctx, row: { refresh_lease_until?: number | string | null }) =>
  row.refresh_lease_until != null && Number(row.refresh_lease_until) >= ctx.clock.now();

async function takeLease(ctx: Ctx, accountId: string, owner: string): Promise<boolean> {
  const now = ctx.clock.now();
  const taken = await ctx.db
    .updateTable("connected_accounts")
    .set({ refresh_lease_until: now + LEASE_MS, refresh_lease_owner: owner, refresh_failure: null })
    .where("id", "=", accountId)
    .where((eb) => eb.or([eb("refresh_lease_until", "is", null), eb("refresh_lease_until", "<", now)]))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

async function releaseLease(ctx: Ctx, accountId: string, owner: string): Promise<void> {
  await ctx.db
    .updateTable("connected_accounts")
    .set({ refresh_lease_until: null, refresh_lease_owner: null })
    .where("id", "=", accountId)
    .where("refresh_lease_owner", "=", owner)
    .execute();
}

/**
 * Asks the token endpoint and stores the new tokens; undefined when the account's credentials
 * were replaced while it asked (the caller looks again: what a user saved wins).
 */
async function refreshHoldingLease(ctx: Ctx, accountId: string): Promise<Credentials | undefined> {
  // Read again under the lease: the previous holder may have refreshed just now.
  const row = await readAccount(ctx, accountId);
  if (!row) throw new OAuthRefreshError(`connected account ${accountId} no longer exists`);
  const credentials = openCredentials(ctx, accountId, row.credentials);
  const request = refreshRequestOf(credentials);
  if (!request || !isDueForRefresh(credentials, ctx.clock.now())) return credentials;
  let next: Credentials;
  try {
    const grant = await requestTokenRefresh(request, { allowPrivate: ctx.config.allowPrivateEgress, hostAddresses: ctx.hostAddresses });
    next = { ...credentials, oauth_access_token: grant.accessToken };
    if (grant.expiresIn !== undefined) next.oauth_expires_at = Math.floor(ctx.clock.now() / 1000 + grant.expiresIn);
    else delete next.oauth_expires_at; // unknown now: the old value would make every run refresh again
    if (grant.refreshToken !== undefined) next.oauth_refresh_token = grant.refreshToken;
  } catch (error) {
    const reason = withoutSecrets(error instanceof OAuthRefreshError ? error.message : "the refresh failed unexpectedly", credentials);
    await ctx.db.updateTable("connected_accounts").set({ refresh_failure: reason }).where("id", "=", accountId).execute();
    ctx.logger.warn({ accountId }, `OAuth refresh of connected account ${accountId} failed: ${reason}`);
    throw new OAuthRefreshError(reason);
  }
  const stored = await ctx.db
    .updateTable("connected_accounts")
    .set({ ...sealCredentials(ctx, accountId, next), updated_at: ctx.clock.now() })
    .where("id", "=", accountId)
    .where("credentials", "=", row.credentials)
    .executeTakeFirst();
  if (Number(stored.numUpdatedRows) === 0) return undefined;
  ctx.logger.info({ accountId }, "refreshed the OAuth token of a connected account");
  return next;
}

/** `message` with every credential value of some length blanked out, longest first. */
export function withoutSecrets(message: string, credentials: Credentials): string {
  const values = Object.values(credentials).filter((value): value is string => typeof value === "string" && value.length >= 4);
  let clean = message;
  for (const value of values.sort((a, b) => b.length - a.length)) clean = clean.split(value).join("[redacted]");
  return clean;
}
