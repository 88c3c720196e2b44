// The deliveries of one webhook of the caller's account, newest first, each with its attempts.
import type { Kysely } from "kysely";
import type { Actor, Ctx } from "../context.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import type { Database, DeliveriesTable, DeliveryAttemptsTable } from "../../store/schema.js";
import { findOwnedWebhook } from "../webhooks/manage-webhook.js";
import { deliveryView, type DeliveryView } from "./delivery-view.js";

export type DeliveryStatus = DeliveriesTable["status"];

export async function listWebhookDeliveries({
  ctx,
  actor,
  webhookId,
  status,
  page,
}: {
  ctx: Ctx;
  actor: Actor;
  webhookId: string;
  status?: DeliveryStatus;
  page: PageRequest;
}): Promise<Page<DeliveryView>> {
  await findOwnedWebhook(ctx, actor, webhookId);
  let query = ctx.db.selectFrom("deliveries").selectAll().where("user_id", "=", actor.userId).where("listener_id", "=", webhookId);
  if (status) query = query.where("status", "=", status);
  const result = await paginateByCreation(query, "deliveries", page);
  const attempts = await attemptsOf(
    ctx.db,
    result.data.map((d) => d.id),
  );
  return { page_info: result.page_info, data: result.data.map((row) => deliveryView(row, attempts.get(row.id) ?? [])) };
}

export async function attemptsOf(db: Kysely<Database>, deliveryIds: string[]): Promise<Map<string, DeliveryAttemptsTable[]>> {
  const byDelivery = new Map<string, DeliveryAttemptsTable[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .selectFrom("delivery_attempts")
    .selectAll()
    .where("delivery_id", "in", deliveryIds)
    .orderBy("attempted_at")
    .orderBy("id")
    .execute();
  for (const row of rows) {
    const list = byDelivery.get(row.delivery_id);
    if (list) list.push(row);
    else byDelivery.set(row.delivery_id, [row]);
  }
  return byDelivery;
}
