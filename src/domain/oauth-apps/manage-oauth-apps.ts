// POST|GET /v1/admin/oauth_apps, DELETE /v1/admin/oauth_apps/{app}: the OAuth 2 apps users may
// connect accounts of. Configuring an app again replaces it (a rotated secret, new scopes);
// the client secret is sealed like account credentials and never shown again. Accounts already
// connected keep the client they were connected with: their credentials hold it.
import type { Ctx } from "../context.js";
import { ServiceError, notFound } from "../../lib/errors.js";
import { toUnixSeconds } from "../../lib/clock.js";
import type { OAuthAppsTable } from "../../store/schema.js";
import { isUniqueViolation } from "../../store/unique-violation.js";
import { decryptText, encryptText } from "../accounts/credential-cipher.js";
import { checkOAuthApp, type OAuthAppInput } from "./oauth-app-input.js";

export interface OAuthAppView {
  app: string;
  client_id: string;
  has_client_secret: boolean;
  authorize_url: string;
  token_url: string;
  scopes: string[];
  created_at: number;
  updated_at: number;
}

/** What a connect needs of an app, its secret opened. */
export interface OAuthApp {
  app: string;
  clientId: string;
  clientSecret?: string;
  authorizeUrl: string;
  tokenUrl: string;
  scopes: string[];
}

const boundTo = (app: string) => `oauth_app:${app}`;

function keyOf(ctx: Ctx): Buffer {
  if (!ctx.credentialKey) throw new Error("this context has no credential key");
  return ctx.credentialKey;
}

function view(row: OAuthAppsTable, hasSecret: boolean): OAuthAppView {
  return {
    app: row.app,
    client_id: row.client_id,
    has_client_secret: hasSecret,
    authorize_url: row.authorize_url,
    token_url: row.token_url,
    scopes: JSON.parse(row.scopes) as string[],
    created_at: toUnixSeconds(Number(row.created_at)),
    updated_at: toUnixSeconds(Number(row.updated_at)),
  };
}

export async function configureOAuthApp({ ctx, input }: { ctx: Ctx; input: OAuthAppInput }): Promise<OAuthAppView> {
  const checked = checkOAuthApp(input);
  const now = ctx.clock.now();
  const values = {
    client_id: checked.client_id,
    client_secret: encryptText(keyOf(ctx), checked.client_secret, boundTo(checked.app)),
    authorize_url: checked.authorize_url,
    token_url: checked.token_url,
    scopes: JSON.stringify(checked.scopes),
    updated_at: now,
  };
  // Replace, else insert; an insert racing another one retries as a replace.
  for (let attempt = 0; ; attempt++) {
    const updated = await ctx.db.updateTable("oauth_apps").set(values).where("app", "=", checked.app).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      try {
        await ctx.db
          .insertInto("oauth_apps")
          .values({ app: checked.app, ...values, created_at: now })
          .execute();
      } catch (error) {
        if (attempt === 0 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
    const row = await ctx.db.selectFrom("oauth_apps").selectAll().where("app", "=", checked.app).executeTakeFirstOrThrow();
    return view(row, checked.client_secret !== "");
  }
}

export async function listOAuthApps({ ctx }: { ctx: Ctx }): Promise<OAuthAppView[]> {
  const rows = await ctx.db.selectFrom("oauth_apps").selectAll().orderBy("app").execute();
  return rows.map((row) => view(row, openSecret(ctx, row) !== undefined));
}

export async function removeOAuthApp({ ctx, app }: { ctx: Ctx; app: string }): Promise<void> {
  const deleted = await ctx.db.deleteFrom("oauth_apps").where("app", "=", app).executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) throw notFound();
  // Connects in flight for it cannot finish any more.
  await ctx.db.deleteFrom("oauth_connects").where("app", "=", app).execute();
}

/** The configured app, or a 404 that says none is. */
export async function findOAuthApp(ctx: Ctx, app: string): Promise<OAuthApp> {
  const row = await ctx.db.selectFrom("oauth_apps").selectAll().where("app", "=", app).executeTakeFirst();
  if (!row)
    throw new ServiceError(
      "NOT_FOUND",
      `no OAuth app "${app.slice(0, 128)}" is configured: an operator adds it (POST /v1/admin/oauth_apps)`,
    );
  return {
    app: row.app,
    clientId: row.client_id,
    clientSecret: openSecret(ctx, row),
    authorizeUrl: row.authorize_url,
    tokenUrl: row.token_url,
    scopes: JSON.parse(row.scopes) as string[],
  };
}

/** The client secret, or undefined for a public client (none configured). */
function openSecret(ctx: Ctx, row: OAuthAppsTable): string | undefined {
  const secret = decryptText(keyOf(ctx), row.client_secret, boundTo(row.app));
  // The key was checked at start; a row that still does not decrypt was altered.
  if (secret === undefined) throw new Error(`the client secret of OAuth app ${row.app} does not decrypt`);
  return secret === "" ? undefined : secret;
}
