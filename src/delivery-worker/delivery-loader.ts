// Loads deliveries for the worker, grouped: a claim hands the worker dozens of jobs in one
// turn of the event loop, and loading each delivery with its own query would cost one query per job. Requests
// made in the same turn (and while the previous group is loading) share one query.
//
// A delivery's first claim uses the row fan-out wrote, handed over at its commit, while fresh.
// Other deliveries are prefetched when their job is claimed, also those that must wait for a place
// under their webhook's limit: when a place frees, the next delivery is already loaded and
// its request starts at once. A prefetched row is used only while it is fresh (a second), so
// a change of the webhook (disabled, new URL) reaches deliveries within that second.
import type { Kysely } from "kysely";
import { createBatcher } from "../queue/batcher.js";
import type { LoadedDelivery } from "../domain/deliveries/loaded-delivery.js";
import type { Database } from "../store/schema.js";

export type { LoadedDelivery };

/** Rows per query, well under both databases' parameter limits. */
const MAX_GROUP = 500;
/** How long a prefetched row may be used instead of reading it again. */
export const PREFETCH_MAX_AGE_MS = 1000;
/**
 * Rows handed over at commit and not yet claimed, at most (and their events' size): they
 * cost no read, but a worker far behind would only hold them until they are stale.
 */
const COMMITTED_ROWS_LIMIT = 8192;
const COMMITTED_BYTES_LIMIT = 32 * 1024 * 1024;

export interface DeliveryLoader {
  /**
   * `firstClaim`: the job is claimed for the first time, so a row read when its delivery was
   * committed is still current (no attempt can have changed it yet).
   */
  load(deliveryId: string, firstClaim?: boolean): Promise<LoadedDelivery | undefined>;
  prefetch(deliveryId: string): void;
  /** Deliveries as this process just committed them (committed-deliveries.ts), for their first claim. */
  committed(rows: LoadedDelivery[]): void;
}

/**
 * Rows read ahead of their use, each used once and only while fresh. Entries go in in time
 * order, so stale ones (jobs that ran elsewhere, or never) are dropped from the front as new
 * ones come.
 */
class ReadAhead {
  private readonly rows = new Map<string, { at: number; row: Promise<LoadedDelivery | undefined>; bytes: number }>();
  /** Event bytes of the rows held (only rows put with their size count). */
  bytes = 0;

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.rows.size;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  put(id: string, row: Promise<LoadedDelivery | undefined>, at: number, bytes = 0): void {
    row.catch(() => undefined); // a failed read is read again by load()
    this.rows.set(id, { at, row, bytes });
    this.bytes += bytes;
  }

  /** The row if it was read ahead and is still fresh; either way it is used up. */
  take(id: string): Promise<LoadedDelivery | undefined> | undefined {
    const entry = this.rows.get(id);
    if (!entry) return undefined;
    this.remove(id, entry.bytes);
    return this.now() - entry.at <= PREFETCH_MAX_AGE_MS ? entry.row : undefined;
  }

  dropStale(at: number): void {
    for (const [id, entry] of this.rows) {
      if (at - entry.at <= PREFETCH_MAX_AGE_MS) break;
      this.remove(id, entry.bytes);
    }
  }

  private remove(id: string, bytes: number): void {
    this.rows.delete(id);
    this.bytes -= bytes;
  }
}

export function deliveryLoader(db: Kysely<Database>, now: () => number = () => performance.now()): DeliveryLoader {
  // Read when its job was claimed (also a job waiting for its webhook's limit).
  const prefetched = new ReadAhead(now);
  // As this process committed it, before any claim: valid only for a job's first claim.
  const committed = new ReadAhead(now);
  // Loads requested in one turn share one query (queue/batcher.ts); an id asked twice is read once.
  const loads = createBatcher<string, LoadedDelivery | undefined>(async (ids) => {
    const rows = await loadGroup([...new Set(ids)]);
    return ids.map((id) => rows.get(id));
  }, MAX_GROUP);
  const request = (deliveryId: string) => loads.add(deliveryId);

  async function loadGroup(ids: string[]): Promise<Map<string, LoadedDelivery>> {
    const rows = await db
      .selectFrom("deliveries")
      .leftJoin("webhooks", (join) =>
        join.onRef("webhooks.id", "=", "deliveries.listener_id").onRef("webhooks.user_id", "=", "deliveries.user_id"),
      )
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

  return {
    committed(rows) {
      const at = now();
      committed.dropStale(at);
      for (const row of rows) {
        // Far behind: claims load these later, as they would without this.
        if (committed.size >= COMMITTED_ROWS_LIMIT || committed.bytes >= COMMITTED_BYTES_LIMIT) return;
        committed.put(row.id, Promise.resolve(row), at, row.event.length);
      }
    },
    prefetch(deliveryId) {
      if (prefetched.has(deliveryId) || committed.has(deliveryId)) return;
      const at = now();
      prefetched.dropStale(at);
      prefetched.put(deliveryId, request(deliveryId), at);
    },
    load(deliveryId, firstClaim = false) {
      const early = committed.take(deliveryId);
      const ahead = (firstClaim ? early : undefined) ?? prefetched.take(deliveryId);
      return ahead ? ahead.catch(() => request(deliveryId)) : request(deliveryId);
    },
  };
}
