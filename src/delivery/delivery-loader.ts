// Loads deliveries for the worker, grouped: a claim hands the worker dozens of jobs in one
// turn of the event loop, and each used to load its delivery with its own query. Requests
// made in the same turn (and while the previous group is loading) share one query.
import type { Kysely } from "kysely";
import type { Database, DeliveriesTable } from "../store/schema.js";

/** A delivery and, for webhook listeners, its webhook of the same account (null fields when none). */
export type LoadedDelivery = DeliveriesTable & {
  wh_id: string | null;
  wh_url: string | null;
  wh_active: number | null;
  wh_signing_secret: string | null;
  wh_previous_secret: string | null;
  wh_previous_secret_expires_at: number | null;
};

/** Rows per query, well under both databases' parameter limits. */
const MAX_GROUP = 500;

export function deliveryLoader(db: Kysely<Database>): (deliveryId: string) => Promise<LoadedDelivery | undefined> {
  const pending = new Map<string, Array<{ resolve: (row: LoadedDelivery | undefined) => void; reject: (error: unknown) => void }>>();
  let scheduled = false;
  let loading = false;

  async function loadGroup(ids: string[]): Promise<Map<string, LoadedDelivery>> {
    const rows = await db
      .selectFrom("deliveries")
      .leftJoin("webhooks", (join) => join.onRef("webhooks.id", "=", "deliveries.listener_id").onRef("webhooks.user_id", "=", "deliveries.user_id"))
      .selectAll("deliveries")
      .select([
        "webhooks.id as wh_id",
        "webhooks.url as wh_url",
        "webhooks.active as wh_active",
        "webhooks.signing_secret as wh_signing_secret",
        "webhooks.previous_secret as wh_previous_secret",
        "webhooks.previous_secret_expires_at as wh_previous_secret_expires_at",
      ])
      .where("deliveries.id", "in", ids)
      .execute();
    return new Map(rows.map((row) => [row.id, row as LoadedDelivery]));
  }

  async function drain(): Promise<void> {
    loading = true;
    try {
      while (pending.size > 0) {
        const group = new Map([...pending].slice(0, MAX_GROUP));
        for (const id of group.keys()) pending.delete(id);
        try {
          const rows = await loadGroup([...group.keys()]);
          for (const [id, waiters] of group) for (const waiter of waiters) waiter.resolve(rows.get(id));
        } catch (error) {
          for (const waiters of group.values()) for (const waiter of waiters) waiter.reject(error);
        }
      }
    } finally {
      loading = false;
    }
  }

  return (deliveryId) =>
    new Promise((resolve, reject) => {
      const waiters = pending.get(deliveryId);
      if (waiters) waiters.push({ resolve, reject });
      else pending.set(deliveryId, [{ resolve, reject }]);
      if (loading || scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        if (!loading) void drain();
      });
    });
}
