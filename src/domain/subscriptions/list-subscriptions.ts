import type { Actor, Ctx } from "../context.js";
import { subscriptionView, type SubscriptionView } from "./subscription-view.js";

/** Every subscription of the account, oldest first (the spec's list has no pagination). */
export async function listSubscriptions({ ctx, actor }: { ctx: Ctx; actor: Actor }): Promise<SubscriptionView[]> {
  const rows = await ctx.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", actor.userId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .execute();
  return rows.map(subscriptionView);
}
