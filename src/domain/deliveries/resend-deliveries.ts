// Re-sending webhook deliveries: one delivery, or every failed one in a time range. A resend
// starts a fresh retry cycle (the attempt history is kept) with the same webhook-id, so a
// receiver that did get it before can recognise the duplicate.
import type { Kysely } from "kysely";
import type { Actor, Ctx } from "../context.js";
import { deliveryJobs } from "./delivery-job.js";
import { invalid, notFound, ServiceError } from "../../lib/errors.js";
import { enqueueJobs } from "../../queue/enqueue.js";
import type { Database, DeliveriesTable } from "../../store/schema.js";
import { findOwnedWebhook } from "../webhooks/manage-webhook.js";
import { deliveryView, type DeliveryView } from "./delivery-view.js";
import { attemptsOf } from "./list-deliveries.js";

const CHUNK = 500;

export async function resendDelivery({ ctx, actor, webhookId, deliveryId }: { ctx: Ctx; actor: Actor; webhookId: string; deliveryId: string }): Promise<DeliveryView> {
  const webhook = await findOwnedWebhook(ctx, actor, webhookId);
  assertActive(webhook.active);
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const delivery = await trx.selectFrom("deliveries").selectAll().where("id", "=", deliveryId).where("listener_id", "=", webhookId).where("user_id", "=", actor.userId).executeTakeFirst();
    if (!delivery) throw notFound();
    // A pending delivery already has a job; a second one could send it twice at once.
    if (delivery.status === "pending") throw new ServiceError("CONFLICT", "delivery is still pending; it will be attempted again on its own");
    await requeue(trx, [delivery], now);
    return { ...delivery, status: "pending" as const, attempts: 0, next_attempt_at: now, updated_at: now };
  });
  const attempts = await attemptsOf(ctx.db, [row.id]);
  return deliveryView(row, attempts.get(row.id) ?? []);
}

/** Re-sends every failed delivery of the webhook created between `from` and `to` (Unix seconds, inclusive). */
export async function resendFailedDeliveries({ ctx, actor, webhookId, from, to }: { ctx: Ctx; actor: Actor; webhookId: string; from?: number; to?: number }): Promise<{ resent: number }> {
  const webhook = await findOwnedWebhook(ctx, actor, webhookId);
  assertActive(webhook.active);
  if (from !== undefined && to !== undefined && from > to) throw invalid("from must not be after to");
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    let query = trx.selectFrom("deliveries").selectAll().where("user_id", "=", actor.userId).where("listener_id", "=", webhookId).where("status", "=", "failed");
    if (from !== undefined) query = query.where("created_at", ">=", from * 1000);
    if (to !== undefined) query = query.where("created_at", "<", (to + 1) * 1000);
    const failed = await query.execute();
    for (let i = 0; i < failed.length; i += CHUNK) await requeue(trx, failed.slice(i, i + CHUNK), now);
    return { resent: failed.length };
  });
}

async function requeue(db: Kysely<Database>, deliveries: DeliveriesTable[], now: number): Promise<void> {
  if (deliveries.length === 0) return;
  await db
    .updateTable("deliveries")
    .set({ status: "pending", attempts: 0, next_attempt_at: now, updated_at: now })
    .where("id", "in", deliveries.map((d) => d.id))
    .execute();
  await enqueueJobs(db, deliveryJobs(deliveries, now), now);
}

function assertActive(active: number): void {
  if (active !== 1) throw new ServiceError("CONFLICT", "the webhook is inactive; activate it before re-sending");
}
