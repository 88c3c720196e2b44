// Fan-out: for events just stored, write the deliveries their subscriptions cause, in the
// same transaction as the events (DESIGN.md §7). Implemented by the delivery issue (4).
import type { Kysely } from "kysely";
import type { StoredEvent } from "../domain/events/stored-event.js";
import type { Database } from "../store/schema.js";

export async function fanOut(_db: Kysely<Database>, _events: StoredEvent[]): Promise<void> {
  // Delivery is wired by issue 4.
}
