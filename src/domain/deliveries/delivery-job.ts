// The queue job type that carries out one delivery; its payload is { deliveryId }. First sends
// and re-sends build their jobs here, so both are scheduled the same way (one concurrency key
// per listener).
import type { NewJob } from "../../queue/job-queue.js";
import type { DeliveriesTable } from "../../store/schema.js";

export const DELIVERY_JOB = "delivery";

export function deliveryJobs(deliveries: Pick<DeliveriesTable, "id" | "user_id" | "listener_id">[], now: number): NewJob[] {
  return deliveries.map((d) => ({
    type: DELIVERY_JOB,
    payload: { deliveryId: d.id },
    userId: d.user_id,
    concurrencyKey: d.listener_id,
    runAt: now,
  }));
}
