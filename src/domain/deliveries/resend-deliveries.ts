// Re-sending webhook deliveries: one delivery, or every failed one in a time range. A resend
// starts a fresh retry cycle (the attempt history is kept) with the same webhook-id, so a
// receiver that did get it before can recognise the duplicate. A pending delivery already has
// its one job: resending it brings that job forward to now rather than adding a second, so
// repeated resends never make concurrent attempts of one delivery.
import type { Kysely } from "kysely";
import type { Actor, Ctx } from "../context.js";
import { DELIVERY_JOB, deliveryJobs } from "./delivery-job.js";
import { invalid, notFound, ServiceError } from "../../lib/errors.js";
import { enqueueJobs } from "../../queue/enqueue.js";
import type { Database, DeliveriesTable } from "../../store/schema.js";
import { findOwnedWebhook } from "../webhooks/manage-webhook.js";
import { deliveryView, type DeliveryView } from "./delivery-view.js";
import { attemptsOf } from "./list-deliveries.js";

const CHUNK = 500;

export async function resendDelivery({
  ctx,
  actor,
  webhookId,
  deliveryId,
}: {
  ctx: Ctx;
  actor: Actor;
  webhookId: string;
  deliveryId: string;
}): Promise<DeliveryView> {
  const webhook = await findOwnedWebhook(ctx, actor, webhookId);
  assertActive(webhook.active);
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const delivery = await trx
      .selectFrom("deliveries")
      .selectAll()
      .where("id", "=", deliveryId)
      .where("listener_id", "=", webhookId)
      .where("user_id", "=", actor.userId)
      .executeTakeFirst();
    if (!delivery) throw notFound();
    if (delivery.status === "pending") return bringForward(trx, delivery, now);
    await requeue(trx, [delivery], now);
    return { ...delivery, status: "pending" as const, attempts: 0, next_attempt_at: now, updated_at: now };
  });
  const attempts = await attemptsOf(ctx.db, [row.id]);
  return deliveryView(row, attempts.get(row.id) ?? []);
}

/** Re-sends every failed delivery of the webhook created between `from` and `to` (Unix seconds, inclusive). */
export async function resendFailedDeliveries({
  ctx,
  actor,
  webhookId,
  from,
  to,
}: {
  ctx: Ctx;
  actor: Actor;
  webhookId: string;
  from?: number;
  to?: number;
}): Promise<{ resent: number }> {
  const webhook = await findOwnedWebhook(ctx, actor, webhookId);
  assertActive(webhook.active);
  if (from !== undefined && to !== undefined && from > to) throw invalid("from must not be after to");
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom("deliveries")
      .selectAll()
      .where("user_id", "=", actor.userId)
      .where("listener_id", "=", webhookId)
      .where("status", "=", "failed");
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
    .where(
      "id",
      "in",
      deliveries.map((d) => d.id),
    )
    .execute();
  await enqueueJobs(db, deliveryJobs(deliveries, now), now);
}

/**
 * A pending delivery's next attempt, now. Its job waiting for its retry time is replaced by one
 * due now (a new job, so the queue's workers are woken as for any new job); a job a worker holds
 * is an attempt being made right now, which is what a resend asks for, so it is left alone. A
 * pending delivery without any job (its job died, dead-jobs.ts) gets one.
 */
async function bringForward(db: Kysely<Database>, delivery: DeliveriesTable, now: number): Promise<DeliveriesTable> {
  const payload = JSON.stringify({ deliveryId: delivery.id });
  const waiting = await db
    .deleteFrom("jobs")
    .where("type", "=", DELIVERY_JOB)
    .where("payload", "=", payload)
    .where("lease_token", "is", null)
    .executeTakeFirst();
  if (Number(waiting.numDeletedRows) === 0) {
    const held = await db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", DELIVERY_JOB)
      .where("payload", "=", payload)
      .executeTakeFirst();
    if (held) return delivery;
  }
  await db.updateTable("deliveries").set({ next_attempt_at: now, updated_at: now }).where("id", "=", delivery.id).execute();
  await enqueueJobs(db, deliveryJobs([delivery], now), now);
  return { ...delivery, next_attempt_at: now, updated_at: now };
}

function assertActive(active: number): void {
  if (active !== 1) throw new ServiceError("CONFLICT", "the webhook is inactive; activate it before re-sending");
}
