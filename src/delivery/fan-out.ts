// Fan-out: for events just stored, write the deliveries their subscriptions cause, in the
// same transaction as the events (DESIGN.md §7), each with a job that carries it out.
//
// Matching (DESIGN.md §5): a subscription's emitter is the exact emitter id or the glob of
// its kind in the same account (`dc_*` for sources, `p_*` for workflows); its event_name ""
// or "default" selects the default stream "", any other name that stream exactly. A
// listener never receives its own events, inactive webhooks receive nothing, and the
// delivery keeps its own copy of the event (events are trimmed and may be deleted).
import type { Kysely } from "kysely";
import type { StoredEvent } from "../domain/events/stored-event.js";
import { streamOf } from "../domain/subscriptions/event-name.js";
import { idPrefix, newId } from "../lib/ids.js";
import { enqueueJobs } from "../queue/enqueue.js";
import type { Database, DeliveriesTable } from "../store/schema.js";
import { deliveryJobs } from "./delivery-job-type.js";
import { currentDeliveryHops, MAX_DELIVERY_HOPS } from "./hops.js";

export interface FanOutOptions {
  /** Hops of the delivery that caused these events; defaults to the async context's. */
  hops?: number;
  now?: number;
}

export async function fanOut(db: Kysely<Database>, events: StoredEvent[], options: FanOutOptions = {}): Promise<void> {
  if (events.length === 0) return;
  const hops = options.hops ?? currentDeliveryHops();
  if (hops >= MAX_DELIVERY_HOPS) return; // subscription loop guard, see hops.ts
  const now = options.now ?? Date.now();
  const deliveries: DeliveriesTable[] = [];

  for (const [key, group] of groupByEmitter(events)) {
    const [userId, emitterId] = JSON.parse(key) as [string, string];
    const glob = `${idPrefix(emitterId)}_*`;
    const subscriptions = await db
      .selectFrom("subscriptions")
      .select(["listener_id", "event_name"])
      .where("user_id", "=", userId)
      .where("emitter_id", "in", [emitterId, glob])
      .where("listener_id", "!=", emitterId)
      .execute();
    if (subscriptions.length === 0) continue;
    const active = await activeListeners(db, userId, subscriptions.map((s) => s.listener_id));
    for (const event of group) {
      const listeners = new Set<string>(); // exact id and glob may both match: deliver once
      for (const s of subscriptions) {
        if (streamOf(s.event_name) !== event.stream || !active.has(s.listener_id)) continue;
        listeners.add(s.listener_id);
      }
      if (listeners.size === 0) continue;
      const body = event.json ?? JSON.stringify(event.event ?? null);
      for (const listenerId of listeners) {
        deliveries.push({
          id: newId("del"),
          user_id: userId,
          listener_id: listenerId,
          emitter_id: emitterId,
          event_id: event.id,
          stream: event.stream,
          event: body,
          hops,
          status: "pending",
          attempts: 0,
          next_attempt_at: now,
          last_attempt_at: null,
          created_at: now,
          updated_at: now,
        });
      }
    }
  }
  if (deliveries.length === 0) return;
  for (let i = 0; i < deliveries.length; i += 200) await db.insertInto("deliveries").values(deliveries.slice(i, i + 200)).execute();
  await enqueueJobs(db, deliveryJobs(deliveries, now), now);
}

function groupByEmitter(events: StoredEvent[]): Map<string, StoredEvent[]> {
  const groups = new Map<string, StoredEvent[]>();
  for (const event of events) {
    const key = JSON.stringify([event.userId, event.emitterId]);
    const list = groups.get(key);
    if (list) list.push(event);
    else groups.set(key, [event]);
  }
  return groups;
}

/** Listeners that may receive: all sources and workflows, and webhooks that are active. */
async function activeListeners(db: Kysely<Database>, userId: string, ids: string[]): Promise<Set<string>> {
  const result = new Set(ids.filter((id) => idPrefix(id) !== "wh"));
  const webhookIds = ids.filter((id) => idPrefix(id) === "wh");
  if (webhookIds.length > 0) {
    const rows = await db.selectFrom("webhooks").select("id").where("user_id", "=", userId).where("id", "in", webhookIds).where("active", "=", 1).execute();
    for (const row of rows) result.add(row.id);
  }
  return result;
}
