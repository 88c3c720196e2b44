// Rotating a webhook's signing secret: the new secret is shown once, in this response; the
// old one keeps signing beside it (a second signature in webhook-signature) for 24 hours,
// so receivers can switch over without rejecting deliveries.
import type { Actor, Ctx } from "../context.js";
import { generateSigningSecret } from "../webhooks/signing-secret.js";
import { findOwnedWebhook } from "../webhooks/manage-webhook.js";
import { webhookView, type WebhookView } from "../webhooks/webhook-view.js";

export const PREVIOUS_SECRET_VALID_MS = 24 * 3600_000;

export async function rotateWebhookSecret({
  ctx,
  actor,
  webhookId,
}: {
  ctx: Ctx;
  actor: Actor;
  webhookId: string;
}): Promise<WebhookView & { previous_secret_expires_at: number }> {
  const current = await findOwnedWebhook(ctx, actor, webhookId);
  const now = ctx.clock.now();
  const next = {
    ...current,
    signing_secret: generateSigningSecret(),
    previous_secret: current.signing_secret,
    previous_secret_expires_at: now + PREVIOUS_SECRET_VALID_MS,
    updated_at: now,
  };
  await ctx.db
    .updateTable("webhooks")
    .set({
      signing_secret: next.signing_secret,
      previous_secret: next.previous_secret,
      previous_secret_expires_at: next.previous_secret_expires_at,
      updated_at: now,
    })
    .where("id", "=", webhookId)
    .where("user_id", "=", actor.userId)
    .execute();
  return {
    ...webhookView(next, { withUserId: true, withSecret: true }),
    previous_secret_expires_at: Math.floor(next.previous_secret_expires_at / 1000),
  };
}
