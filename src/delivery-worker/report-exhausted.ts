// A delivery that used up its retries is reported as an event on the `$errors` stream of the
// emitter whose event could not be delivered, in the emitter owner's account — where the
// user already looks for that source's or workflow's failures, and from where a
// subscription can forward it. It travels one hop further than the failed delivery, so a
// `$errors` subscription to the same dead webhook cannot loop forever (src/domain/deliveries/hops.ts).
import type { Ctx } from "../domain/context.js";
import { appendEvents, retryOnEventIdClash } from "../domain/events/append-events.js";
import { isOwnedBy } from "../domain/ownership.js";
import { asWorkflowDeliveryError, type DeliveryFailureReport } from "../domain/workflows/delivery-failure.js";
import { kindOfId } from "../lib/resource-kinds.js";
import type { DeliveriesTable } from "../store/schema.js";
import { withDeliveryHops } from "../domain/deliveries/hops.js";

export interface ExhaustedInfo {
  attempts: number;
  lastStatus?: number;
  lastError?: string;
  reason: string;
}

export function exhaustedErrorEvent(delivery: DeliveriesTable, info: ExhaustedInfo): unknown {
  const message = `delivery ${delivery.id} of event ${delivery.event_id} to ${delivery.listener_id} failed: ${info.reason}`;
  return {
    error: { name: "DeliveryFailed", message, stack: `DeliveryFailed: ${message}` },
    original_event: JSON.parse(delivery.event),
    delivery: {
      id: delivery.id,
      listener_id: delivery.listener_id,
      event_id: delivery.event_id,
      event_name: delivery.stream,
      attempts: info.attempts,
      last_status: info.lastStatus ?? null,
      last_error: info.lastError ?? null,
    },
  };
}

export async function reportExhaustedDelivery(ctx: Ctx, delivery: DeliveriesTable, info: ExhaustedInfo): Promise<void> {
  ctx.logger.warn({ deliveryId: delivery.id, listenerId: delivery.listener_id, reason: info.reason }, "delivery failed for good");
  // The emitter may have been deleted since; then there is no stream to report on.
  if (!(await isOwnedBy(ctx, { userId: delivery.user_id }, delivery.emitter_id))) return;
  const report = exhaustedErrorEvent(delivery, info);
  // A workflow's $errors events have the spec's shape (delivery-failure.ts).
  const event =
    kindOfId(delivery.emitter_id) === "workflow"
      ? await asWorkflowDeliveryError(ctx, delivery.emitter_id, report as DeliveryFailureReport)
      : report;
  await withDeliveryHops(delivery.hops + 1, () =>
    retryOnEventIdClash(() =>
      ctx.db.transaction().execute((trx) =>
        appendEvents(ctx, trx, {
          userId: delivery.user_id,
          emitterId: delivery.emitter_id,
          nowMs: ctx.clock.now(),
          events: [{ stream: "$errors", event }],
          limits: ctx.eventLimits,
        }),
      ),
    ),
  );
}
