// A delivery row as the delivery worker uses it: fan-out builds these with the webhook's
// columns it read in its subscriptions query, and the worker's loader reads the same shape.
import type { DeliveriesTable } from "../../store/schema.js";

/** A delivery and, for webhook listeners, its webhook of the same account (null fields when none). */
export type LoadedDelivery = DeliveriesTable & {
  wh_id: string | null;
  wh_url: string | null;
  wh_active: number | null;
  wh_signing_secret: string | null;
  wh_previous_secret: string | null;
  wh_previous_secret_expires_at: number | null;
};
