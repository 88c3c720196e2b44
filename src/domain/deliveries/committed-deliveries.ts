// Deliveries this process has just committed, handed to its delivery worker with their
// webhook's columns, so that a delivery's first attempt needs no read of it (delivery-loader.ts):
// fan-out wrote the row and read the webhook in its subscriptions query, in the transaction
// that committed them. On PostgreSQL that read was a round trip on the path from emit to
// webhook; on SQLite it was about 13 µs of the event loop per delivery.
// A hint only: a delivery whose announcement is missed, comes too late, or whose job another
// process claims, is loaded when claimed.
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.js";
import { afterCommit } from "../../store/transaction-scope.js";
import type { LoadedDelivery } from "./loaded-delivery.js";

type Listener = (deliveries: LoadedDelivery[]) => void;

/** The announcements of one context (Ctx.committedDeliveries): its delivery worker listens. */
export class CommittedDeliveries {
  private readonly listeners = new Set<Listener>();

  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hands `deliveries` to the listeners once what `db` wrote is committed. */
  announceOnCommit(db: Kysely<Database>, deliveries: LoadedDelivery[]): void {
    if (this.listeners.size === 0 || deliveries.length === 0) return;
    afterCommit(db, () => {
      for (const listener of this.listeners) listener(deliveries);
    });
  }
}
