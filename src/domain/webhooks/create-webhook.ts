import type { Actor, Ctx } from "../context.js";
import { newId } from "../../lib/ids.js";
import type { WebhooksTable } from "../../store/schema.js";
import { generateSigningSecret } from "./signing-secret.js";
import { validateWebhookUrl } from "./webhook-url.js";
import { assertWebhookTargetAllowed } from "./webhook-target.js";
import { webhookView, type WebhookView } from "./webhook-view.js";

export interface CreateWebhookInput {
  url: string;
  name?: string;
  description?: string;
}

/** Creates an active webhook; the response is the only place its signing secret is shown. */
export async function createWebhook({ ctx, actor, input }: { ctx: Ctx; actor: Actor; input: CreateWebhookInput }): Promise<WebhookView> {
  const url = validateWebhookUrl(input.url);
  await assertWebhookTargetAllowed(ctx, url);
  const now = ctx.clock.now();
  const row: WebhooksTable = {
    id: newId("wh"),
    user_id: actor.userId,
    name: input.name ?? null,
    description: input.description ?? null,
    url,
    active: 1,
    signing_secret: generateSigningSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto("webhooks").values(row).execute();
  return webhookView(row, { withUserId: true, withSecret: true });
}
