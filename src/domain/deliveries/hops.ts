// Loop guard for subscriptions. Every delivery carries `hops`: how many deliveries led to
// the event it carries (0 for an event caused by an HTTP request, a timer or an API call).
// A listener handler runs inside `withDeliveryHops(delivery.hops + 1, …)`, so the events it
// emits — stored through appendEvents → fanOut in the same async context — produce
// deliveries one hop further. Past MAX_DELIVERY_HOPS fan-out writes no more deliveries, so a
// cycle (A → B → A, or a source subscribed to its own glob) stops after a few rounds
// instead of running forever. The events are still stored; only their onward delivery stops.
import { AsyncLocalStorage } from "node:async_hooks";

export const MAX_DELIVERY_HOPS = 8;

const storage = new AsyncLocalStorage<number>();

/** The hop count events stored now will carry (0 outside a delivery). */
export function currentDeliveryHops(): number {
  return storage.getStore() ?? 0;
}

export function withDeliveryHops<T>(hops: number, fn: () => T): T {
  return storage.run(hops, fn);
}
