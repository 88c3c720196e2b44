export interface SubscriptionView {
  id: string;
  emitter_id: string;
  listener_id: string;
  event_name: string;
}

export function subscriptionView(row: SubscriptionView): SubscriptionView {
  return { id: row.id, emitter_id: row.emitter_id, listener_id: row.listener_id, event_name: row.event_name };
}
