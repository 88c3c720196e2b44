import type { Actor, Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { assertEmitter, assertListener } from "../ownership.js";
import { sameStreamNames, validateEventName } from "./event-name.js";
import { subscriptionView, type SubscriptionView } from "./subscription-view.js";

export interface SubscriptionInput {
  emitter_id: string;
  listener_id: string;
  event_name?: string;
}

/** Subscribes a listener to an emitter's stream. Creating the same subscription twice returns the first. */
export async function createSubscription({
  ctx,
  actor,
  input,
}: {
  ctx: Ctx;
  actor: Actor;
  input: SubscriptionInput;
}): Promise<SubscriptionView> {
  const eventName = validateEventName(input.event_name ?? "");
  if (input.emitter_id === input.listener_id) throw invalid("a resource cannot be subscribed to itself");
  await assertEmitter(ctx, actor, input.emitter_id);
  await assertListener(ctx, actor, input.listener_id);
  return insertSubscription(ctx, actor.userId, input.emitter_id, input.listener_id, eventName);
}

/**
 * Inserts unless the same (emitter, listener, stream) exists, answering with the existing
 * one then (its event_name may be the other spelling of the default stream); shared with
 * auto-subscriptions.
 */
export async function insertSubscription(
  ctx: Ctx,
  userId: string,
  emitterId: string,
  listenerId: string,
  eventName: string,
): Promise<SubscriptionView> {
  const existing = await findSubscription(ctx, userId, emitterId, listenerId, eventName);
  if (existing) return subscriptionView(existing);
  const row = {
    id: newId("sub"),
    user_id: userId,
    emitter_id: emitterId,
    listener_id: listenerId,
    event_name: eventName,
    created_at: ctx.clock.now(),
  };
  await ctx.db
    .insertInto("subscriptions")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "emitter_id", "listener_id", "event_name"]).doNothing())
    .execute();
  // A concurrent request may have won the insert: answer with the row that exists.
  return subscriptionView((await findSubscription(ctx, userId, emitterId, listenerId, eventName)) ?? row);
}

function findSubscription(ctx: Ctx, userId: string, emitterId: string, listenerId: string, eventName: string) {
  return ctx.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("emitter_id", "=", emitterId)
    .where("listener_id", "=", listenerId)
    .where("event_name", "in", sameStreamNames(eventName))
    .orderBy("created_at", "asc")
    .executeTakeFirst();
}
