// App props (`type: "app"`) of sources. A source stores {"authProvisionId": "apn_…"}; the older
// inline {"$auth": {…}} becomes a connected account of the source's owner, remembered by source
// and prop, so a later inline `$auth` for the prop replaces that account's credentials. At run
// time the runner gets {"$auth": credentials}, which never reach the source's row.
import type { Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import { newAccountRow } from "./account-row.js";
import { checkCredentials, openCredentials, sealCredentials } from "./credentials.js";

const appPropsOf = (metadata: ComponentMetadata) => metadata.configurable_props.filter((prop) => prop.type === "app");

/** configured_props with every app prop as {authProvisionId}; run in the transaction that saves the source. */
export async function storeAppProps(ctx: Ctx, input: { userId: string; sourceId: string; metadata: ComponentMetadata; configured: Record<string, unknown> }): Promise<Record<string, unknown>> {
  const stored = { ...input.configured };
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
      const account = await ctx.db.selectFrom("connected_accounts").select(["id", "app"]).where("id", "=", shape.authProvisionId).where("user_id", "=", input.userId).executeTakeFirst();
      if (!account) throw invalid(`${where}.authProvisionId names no connected account of this account`);
      if (account.app !== app) throw invalid(`${where} is an app prop of "${app}", but connected account ${account.id} is for "${account.app}"`);
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
    if (typeof object.authProvisionId !== "string" || object.authProvisionId === "") throw invalid(`${where}.authProvisionId must be a connected account's id`);
    return { authProvisionId: object.authProvisionId };
  }
  if (keys.length === 1 && keys[0] === "$auth") return { $auth: checkCredentials(object.$auth, `${where}.$auth`) };
  throw invalid(expected);
}

async function storeInlineAuth(ctx: Ctx, input: { userId: string; sourceId: string; prop: string; app: string; credentials: Record<string, unknown> }): Promise<string> {
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
  const row = newAccountRow(ctx, { userId: input.userId, app: input.app, name: null, credentials: input.credentials, origin: { sourceId: input.sourceId, prop: input.prop } });
  await ctx.db.insertInto("connected_accounts").values(row).execute();
  return row.id;
}

/** Prop values for the runner: each app prop's {authProvisionId} replaced by {$auth: credentials}. */
export async function withAppAuth(ctx: Ctx, userId: string, metadata: ComponentMetadata, values: Record<string, unknown>): Promise<Record<string, unknown>> {
  const props = appPropsOf(metadata);
  if (props.length === 0) return values;
  const out = { ...values };
  for (const prop of props) {
    const id = (values[prop.name] as { authProvisionId?: unknown } | undefined)?.authProvisionId;
    if (typeof id !== "string") continue;
    const row = await ctx.db.selectFrom("connected_accounts").select(["id", "credentials"]).where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
    out[prop.name] = { $auth: row ? openCredentials(ctx, row.id, row.credentials) : {} };
  }
  return out;
}

/** Removes the accounts a source's inline `$auth` made, unless another source names them. */
export async function deleteInlineAccounts(ctx: Pick<Ctx, "db">, userId: string, sourceId: string): Promise<void> {
  const made = await ctx.db.selectFrom("connected_accounts").select("id").where("user_id", "=", userId).where("source_id", "=", sourceId).execute();
  for (const { id } of made) {
    const users = await ctx.db.selectFrom("sources").select("id").where("user_id", "=", userId).where("id", "!=", sourceId).where("configured_props", "like", `%"${id}"%`).executeTakeFirst();
    if (!users) await ctx.db.deleteFrom("connected_accounts").where("id", "=", id).execute();
  }
}
