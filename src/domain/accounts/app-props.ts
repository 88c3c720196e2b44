// App props (`type: "app"`) of sources. A source stores {"authProvisionId": "apn_…"}; the older
// inline {"$auth": {…}} becomes a connected account of the source's owner, remembered by source
// and prop, so a later inline `$auth` for the prop replaces that account's credentials. At run
// time the runner gets {"$auth": credentials}, which never reach the source's row; OAuth tokens
// that are due are refreshed first (oauth-refresh.ts).
import type { Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import { newAccountRow } from "./account-row.js";
import { accountUsers } from "./account-users.js";
import type { OAuthAppProp } from "./oauth-app-prop.js";
import { checkCredentials, openCredentials, sealCredentials } from "./credentials.js";
import { freshCredentials, isDueForRefresh, OAuthRefreshError, refreshRequestOf } from "./oauth-refresh.js";
import { isEmailProp } from "../inbound-email/email-address.js";

/** App props that name a connected account: not an e-mail prop, whose address the service gives. */
const appPropsOf = (metadata: ComponentMetadata) => metadata.configurable_props.filter((prop) => prop.type === "app" && !isEmailProp(prop));

/** configured_props with every app prop as {authProvisionId}; run in the transaction that saves the source. */
export async function storeAppProps(
  ctx: Ctx,
  input: { userId: string; sourceId: string; metadata: ComponentMetadata; configured: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  const stored = { ...input.configured };
  // An e-mail prop's value is derived (its address); whatever was sent for it (e.g. the
  // {"email_address": …} a GET showed) is not kept.
  for (const prop of input.metadata.configurable_props) if (isEmailProp(prop)) delete stored[prop.name];
  for (const prop of appPropsOf(input.metadata)) {
    const value = stored[prop.name];
    if (value === undefined || value === null) {
      delete stored[prop.name];
      continue;
    }
    const where = `configured_props.${prop.name}`;
    const app = typeof prop.app === "string" ? prop.app : prop.name;
    const shape = appPropShape(value, where);
    if ("authProvisionId" in shape) {
      const account = await ctx.db
        .selectFrom("connected_accounts")
        .select(["id", "app"])
        .where("id", "=", shape.authProvisionId)
        .where("user_id", "=", input.userId)
        .executeTakeFirst();
      // Another account's id is as unknown as a missing one: a 404 like every other id.
      if (!account) throw new ServiceError("NOT_FOUND", `${where}.authProvisionId names no connected account of this account`);
      if (account.app !== app)
        throw invalid(`${where} is an app prop of "${app}", but connected account ${account.id} is for "${account.app}"`);
      stored[prop.name] = { authProvisionId: account.id };
    } else {
      stored[prop.name] = { authProvisionId: await storeInlineAuth(ctx, { ...input, prop: prop.name, app, credentials: shape.$auth }) };
    }
  }
  return stored;
}

function appPropShape(value: unknown, where: string): { authProvisionId: string } | { $auth: Record<string, unknown> } {
  const expected = `${where} must be {"authProvisionId": "apn_…"} or {"$auth": {…}}`;
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(expected);
  const keys = Object.keys(value as object);
  const object = value as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === "authProvisionId") {
    if (typeof object.authProvisionId !== "string" || object.authProvisionId === "")
      throw invalid(`${where}.authProvisionId must be a connected account's id`);
    return { authProvisionId: object.authProvisionId };
  }
  if (keys.length === 1 && keys[0] === "$auth") return { $auth: checkCredentials(object.$auth, `${where}.$auth`) };
  throw invalid(expected);
}

async function storeInlineAuth(
  ctx: Ctx,
  input: { userId: string; sourceId: string; prop: string; app: string; credentials: Record<string, unknown> },
): Promise<string> {
  const made = await ctx.db
    .selectFrom("connected_accounts")
    .select("id")
    .where("user_id", "=", input.userId)
    .where("source_id", "=", input.sourceId)
    .where("prop_name", "=", input.prop)
    .executeTakeFirst();
  if (made) {
    await ctx.db
      .updateTable("connected_accounts")
      .set({ ...sealCredentials(ctx, made.id, input.credentials), updated_at: ctx.clock.now() })
      .where("id", "=", made.id)
      .execute();
    return made.id;
  }
  const row = newAccountRow(ctx, {
    userId: input.userId,
    app: input.app,
    name: null,
    credentials: input.credentials,
    origin: { sourceId: input.sourceId, prop: input.prop },
  });
  await ctx.db.insertInto("connected_accounts").values(row).execute();
  return row.id;
}

/**
 * Prop values for the runner: each app prop's {authProvisionId} replaced by {$auth: credentials};
 * and the app props whose tokens may need refreshing before a run.
 */
export async function withAppAuth(
  ctx: Ctx,
  userId: string,
  metadata: ComponentMetadata,
  values: Record<string, unknown>,
): Promise<{ props: Record<string, unknown>; oauthProps: OAuthAppProp[] }> {
  const props = appPropsOf(metadata);
  const oauthProps: OAuthAppProp[] = [];
  if (props.length === 0) return { props: values, oauthProps };
  const out = { ...values };
  for (const prop of props) {
    const id = (values[prop.name] as { authProvisionId?: unknown } | undefined)?.authProvisionId;
    if (typeof id !== "string") continue;
    const row = await ctx.db
      .selectFrom("connected_accounts")
      .select(["id", "credentials"])
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    const credentials = row ? openCredentials(ctx, row.id, row.credentials) : {};
    out[prop.name] = { $auth: credentials };
    if (row && refreshRequestOf(credentials)) oauthProps.push({ prop: prop.name, accountId: row.id });
  }
  return { props: out, oauthProps };
}

/**
 * The props a run gets: those of app props whose access token is due swapped for refreshed
 * credentials (the same object when none is due). An OAuthRefreshError when a refresh failed.
 */
export async function withFreshTokens(
  ctx: Ctx,
  props: Record<string, unknown>,
  oauthProps: readonly OAuthAppProp[],
): Promise<Record<string, unknown>> {
  let out = props;
  for (const { prop, accountId } of oauthProps) {
    const auth = (props[prop] as { $auth?: Record<string, unknown> } | undefined)?.$auth;
    if (!auth || !isDueForRefresh(auth, ctx.clock.now())) continue;
    const fresh = await freshCredentials(ctx, accountId).catch((error: unknown) => {
      if (!(error instanceof OAuthRefreshError)) throw error;
      throw new OAuthRefreshError(
        `the OAuth token of connected account ${accountId} (prop ${prop}) could not be refreshed: ${error.message}`,
      );
    });
    if (out === props) out = { ...props };
    out[prop] = { $auth: fresh };
  }
  return out;
}

/**
 * Removes the accounts an inline `$auth` made for `madeFor` (a source's id, or a workflow's step
 * ids: the account remembers whose value it was), unless a source or workflow still names them.
 * Called after the source or workflow itself was deleted, in the same transaction.
 */
export async function deleteInlineAccounts(ctx: Pick<Ctx, "db">, userId: string, madeFor: string[]): Promise<void> {
  if (madeFor.length === 0) return;
  const made = await ctx.db
    .selectFrom("connected_accounts")
    .select("id")
    .where("user_id", "=", userId)
    .where("source_id", "in", madeFor)
    .execute();
  for (const { id } of made) {
    if ((await accountUsers(ctx, userId, id)).length === 0) await ctx.db.deleteFrom("connected_accounts").where("id", "=", id).execute();
  }
}
