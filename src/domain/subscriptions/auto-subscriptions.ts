// Auto-subscriptions: a listener asks for a stream of every workflow and source created
// later. Existing emitters are not affected (spec); `applyAutoSubscriptions` runs when an
// emitter is created, in the same transaction.
import type { Actor, Ctx } from "../context.js";
import { newId } from "../../lib/ids.js";
import { assertListener } from "../ownership.js";
import { sameStreamNames, validateEventName } from "./event-name.js";
import { insertSubscription } from "./create-subscription.js";

export interface AutoSubscriptionView {
  id: string;
  listener_id: string;
  event_name: string;
}

export async function createAutoSubscription({
  ctx,
  actor,
  input,
}: {
  ctx: Ctx;
  actor: Actor;
  input: { listener_id: string; event_name: string };
}): Promise<AutoSubscriptionView> {
  const eventName = validateEventName(input.event_name);
  await assertListener(ctx, actor, input.listener_id);
  const find = () =>
    ctx.db
      .selectFrom("auto_subscriptions")
      .select(["id", "listener_id", "event_name"])
      .where("user_id", "=", actor.userId)
      .where("listener_id", "=", input.listener_id)
      .where("event_name", "in", sameStreamNames(eventName))
      .orderBy("created_at", "asc")
      .executeTakeFirst();
  const existing = await find();
  if (existing) return existing;
  const row = {
    id: newId("sub"),
    user_id: actor.userId,
    listener_id: input.listener_id,
    event_name: eventName,
    created_at: ctx.clock.now(),
  };
  await ctx.db
    .insertInto("auto_subscriptions")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "listener_id", "event_name"]).doNothing())
    .execute();
  // A concurrent request may have won the insert: answer with the row that exists.
  return (await find()) ?? { id: row.id, listener_id: row.listener_id, event_name: row.event_name };
}

/** Called when a workflow or source is created: subscribes every auto-subscribed listener to it. */
export async function applyAutoSubscriptions(ctx: Ctx, userId: string, emitterId: string): Promise<void> {
  const autos = await ctx.db.selectFrom("auto_subscriptions").selectAll().where("user_id", "=", userId).execute();
  for (const auto of autos) {
    if (auto.listener_id === emitterId) continue;
    await insertSubscription(ctx, userId, emitterId, auto.listener_id, auto.event_name);
  }
}
