// Delivery to sources ("dc") and workflows ("p"): their issues register a handler here.
// Until one is registered, deliveries to that kind stay pending and are retried (durable,
// never dropped). A handler that throws is retried on the webhook retry schedule.
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

export interface ListenerDelivery {
  deliveryId: string;
  userId: string;
  listenerId: string;
  emitterId: string;
  eventName: string;
  eventId: string;
  event: unknown;
  /** How many deliveries led to this event; events the handler emits travel one hop further. */
  hops: number;
  /**
   * Marks the delivery done inside the handler's own transaction (the one storing what the
   * listener emitted), so a crash between the two cannot deliver the event twice.
   */
  complete?: (tx: Kysely<Database>) => Promise<void>;
}

export type ListenerHandler = (delivery: ListenerDelivery) => Promise<void>;

const handlers = new Map<string, ListenerHandler>();

export function registerListenerHandler(prefix: "dc" | "p", handler: ListenerHandler): void {
  handlers.set(prefix, handler);
}

export function listenerHandlerFor(prefix: string): ListenerHandler | undefined {
  return handlers.get(prefix);
}
