// Delivery to sources and workflows: the composition root (main.ts) builds one
// handler per listener kind and hands them to the delivery worker. A delivery to a kind without
// a handler stays pending and is retried (durable, never dropped). A handler that throws is
// retried on the webhook retry schedule.
import type { Kysely } from "kysely";
import type { HandledListenerKind } from "../../lib/resource-kinds.js";
import type { Database } from "../../store/schema.js";

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

/** The handler of each listener kind the delivery worker does not send itself (lib/resource-kinds.ts). */
export type ListenerHandlers = ReadonlyMap<HandledListenerKind, ListenerHandler>;
