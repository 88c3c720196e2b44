import type { Actor, Ctx } from "../context.js";
import { notFound } from "../../lib/errors.js";
import type { SubscriptionInput } from "./create-subscription.js";
import { sameStreamNames } from "./event-name.js";

/**
 * Removes the subscription with exactly this emitter, listener and event_name; one created
 * without a stream is deleted with `event_name=` (empty), as the spec says; `default` and
 * the empty name are the same stream.
 */
export async function deleteSubscription({
  ctx,
  actor,
  input,
}: {
  ctx: Ctx;
  actor: Actor;
  input: Required<SubscriptionInput>;
}): Promise<void> {
  const result = await ctx.db
    .deleteFrom("subscriptions")
    .where("user_id", "=", actor.userId)
    .where("emitter_id", "=", input.emitter_id)
    .where("listener_id", "=", input.listener_id)
    .where("event_name", "in", sameStreamNames(input.event_name))
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
}
