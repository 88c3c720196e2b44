// How a webhook delivery and its attempts appear in the API (timestamps in Unix seconds).
import { toUnixSeconds } from "../../lib/clock.js";
import type { DeliveriesTable, DeliveryAttemptsTable } from "../../store/schema.js";

export interface AttemptView {
  attempted_at: number;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  /** The `webhook-id` header the receiver saw (stable across retries). */
  webhook_message_id: string;
  emitter_id: string;
  event_id: string;
  event_name: string;
  event: unknown;
  status: DeliveriesTable["status"];
  attempt_count: number;
  last_attempt: AttemptView | null;
  attempts: AttemptView[];
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export function attemptView(row: DeliveryAttemptsTable): AttemptView {
  return {
    attempted_at: toUnixSeconds(row.attempted_at),
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    response_excerpt: row.response_excerpt,
    error: row.error,
  };
}

/** `attempts` is every recorded attempt, oldest first (resends add to the same list). */
export function deliveryView(row: DeliveriesTable, attempts: DeliveryAttemptsTable[]): DeliveryView {
  const views = attempts.map(attemptView);
  return {
    id: row.id,
    webhook_message_id: row.id,
    emitter_id: row.emitter_id,
    event_id: row.event_id,
    event_name: row.stream,
    event: JSON.parse(row.event),
    status: row.status,
    attempt_count: views.length,
    last_attempt: views[views.length - 1] ?? null,
    attempts: views,
    next_attempt_at: row.status === "pending" && row.next_attempt_at !== null ? toUnixSeconds(row.next_attempt_at) : null,
    created_at: toUnixSeconds(row.created_at),
    updated_at: toUnixSeconds(row.updated_at),
  };
}
