// Reading, changing and deleting one webhook of the caller's account.
import type { Actor, Ctx } from "../context.js";
import { notFound } from "../../lib/errors.js";
import type { WebhooksTable } from "../../store/schema.js";
import { validateWebhookUrl } from "./webhook-url.js";
import { assertWebhookTargetAllowed } from "./webhook-target.js";
import { webhookView, type WebhookView } from "./webhook-view.js";

export async function findOwnedWebhook(ctx: Ctx, actor: Actor, id: string): Promise<WebhooksTable> {
  const row = await ctx.db.selectFrom("webhooks").selectAll().where("id", "=", id).where("user_id", "=", actor.userId).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function getWebhook({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<WebhookView> {
  return webhookView(await findOwnedWebhook(ctx, actor, id), { withUserId: true });
}

export interface UpdateWebhookInput {
  url?: string;
  name?: string | null;
  description?: string | null;
  active?: boolean;
}

export async function updateWebhook({
  ctx,
  actor,
  id,
  input,
}: {
  ctx: Ctx;
  actor: Actor;
  id: string;
  input: UpdateWebhookInput;
}): Promise<WebhookView> {
  const current = await findOwnedWebhook(ctx, actor, id);
  const url = input.url === undefined ? current.url : validateWebhookUrl(input.url);
  if (input.url !== undefined) await assertWebhookTargetAllowed(ctx, url);
  const next: WebhooksTable = {
    ...current,
    url,
    name: input.name === undefined ? current.name : input.name,
    description: input.description === undefined ? current.description : input.description,
    active: input.active === undefined ? current.active : input.active ? 1 : 0,
    updated_at: ctx.clock.now(),
  };
  await ctx.db
    .updateTable("webhooks")
    .set({ url: next.url, name: next.name, description: next.description, active: next.active, updated_at: next.updated_at })
    .where("id", "=", id)
    .where("user_id", "=", actor.userId)
    .execute();
  return webhookView(next, { withUserId: true });
}

/** Deleting a webhook also removes the subscriptions that deliver to it. */
export async function deleteWebhook({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<void> {
  await findOwnedWebhook(ctx, actor, id);
  await ctx.db.transaction().execute(async (db) => {
    await db.deleteFrom("subscriptions").where("user_id", "=", actor.userId).where("listener_id", "=", id).execute();
    await db.deleteFrom("auto_subscriptions").where("user_id", "=", actor.userId).where("listener_id", "=", id).execute();
    await db.deleteFrom("webhooks").where("id", "=", id).where("user_id", "=", actor.userId).execute();
  });
}
