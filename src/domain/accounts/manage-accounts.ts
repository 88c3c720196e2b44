// POST /accounts, GET /users/me/accounts, GET|PUT|DELETE /accounts/{id}: connected accounts of
// the caller's account. Credentials go in and are never given back.
import type { Actor, Ctx } from "../context.js";
import { ServiceError, invalid, notFound } from "../../lib/errors.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import type { ConnectedAccountsTable } from "../../store/schema.js";
import { forgetSource } from "../sources/runnable-source.js";
import { accountView, type AccountView } from "./account-view.js";
import { accountUsers, describeUsers, sourcesUsingAccount } from "./account-users.js";
import { newAccountRow } from "./account-row.js";
import { checkCredentials, sealCredentials } from "./credentials.js";

export interface CreateAccountInput {
  app?: string;
  name?: string | null;
  credentials?: unknown;
}

export interface UpdateAccountInput {
  name?: string | null;
  credentials?: unknown;
}

export async function createAccount({ ctx, actor, input }: { ctx: Ctx; actor: Actor; input: CreateAccountInput }): Promise<AccountView> {
  const app = input.app?.trim();
  if (!app) throw invalid("app is required");
  const credentials = checkCredentials(input.credentials, "credentials");
  const row = newAccountRow(ctx, { userId: actor.userId, app, name: input.name ?? null, credentials, origin: null });
  await ctx.db.insertInto("connected_accounts").values(row).execute();
  return accountView(ctx.config.publicUrl, row);
}

export async function findOwnedAccount(ctx: Pick<Ctx, "db">, actor: Actor, id: string): Promise<ConnectedAccountsTable> {
  const row = await ctx.db
    .selectFrom("connected_accounts")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", actor.userId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function listAccounts({ ctx, actor, page }: { ctx: Ctx; actor: Actor; page: PageRequest }): Promise<Page<AccountView>> {
  const query = ctx.db.selectFrom("connected_accounts").selectAll().where("user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "connected_accounts", page);
  return { page_info: result.page_info, data: result.data.map((row) => accountView(ctx.config.publicUrl, row)) };
}

export async function getAccount({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<AccountView> {
  return accountView(ctx.config.publicUrl, await findOwnedAccount(ctx, actor, id));
}

export async function updateAccount({
  ctx,
  actor,
  id,
  input,
}: {
  ctx: Ctx;
  actor: Actor;
  id: string;
  input: UpdateAccountInput;
}): Promise<AccountView> {
  const current = await findOwnedAccount(ctx, actor, id);
  const sealed = input.credentials === undefined ? {} : sealCredentials(ctx, id, checkCredentials(input.credentials, "credentials"));
  const next: ConnectedAccountsTable = {
    ...current,
    ...sealed,
    name: input.name === undefined ? current.name : input.name,
    // New credentials have not failed a refresh yet.
    refresh_failure: input.credentials === undefined ? (current.refresh_failure ?? null) : null,
    updated_at: ctx.clock.now(),
  };
  await ctx.db
    .updateTable("connected_accounts")
    .set({
      name: next.name,
      credentials: next.credentials,
      fields: next.fields,
      updated_at: next.updated_at,
      refresh_failure: next.refresh_failure,
    })
    .where("id", "=", id)
    .where("user_id", "=", actor.userId)
    .execute();
  // Sources of this process run with the new credentials at once; other processes within seconds.
  for (const sourceId of await sourcesUsingAccount(ctx, actor.userId, id)) forgetSource(ctx, sourceId);
  return accountView(ctx.config.publicUrl, next);
}

/** Refused (409) while a source or a workflow names the account; the answer names them. */
export async function deleteAccount({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<void> {
  await findOwnedAccount(ctx, actor, id);
  const users = await accountUsers(ctx, actor.userId, id);
  if (users.length > 0)
    throw new ServiceError(
      "CONFLICT",
      `connected account ${id} is used by ${describeUsers(users)}; change or delete ${users.length === 1 ? "it" : "them"} first`,
    );
  await ctx.db.deleteFrom("connected_accounts").where("id", "=", id).where("user_id", "=", actor.userId).execute();
}
