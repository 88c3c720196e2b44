// What a webhook endpoint's answer does to the webhook itself. 410 Gone says the endpoint is
// gone for good (Standard Webhooks): the webhook is disabled, so later events are not
// delivered to it and its delivery ends without retries.
import type { Ctx } from "../context.js";

export const GONE_REASON = "the endpoint answered 410 Gone; webhook disabled";

/**
 * Disables the webhook when its endpoint answered 410. Returns why its delivery ends there,
 * or undefined when the answer leaves the webhook as it is.
 */
export async function disableGoneWebhook({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { webhookId: string; status: number | undefined };
}): Promise<string | undefined> {
  if (input.status !== 410) return undefined;
  await ctx.db.updateTable("webhooks").set({ active: 0, updated_at: ctx.clock.now() }).where("id", "=", input.webhookId).execute();
  return GONE_REASON;
}
