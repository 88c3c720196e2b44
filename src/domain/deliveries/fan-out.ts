// Fan-out: for events just stored, write the deliveries their subscriptions cause, in the
// same transaction as the events (docs/architecture.md, "Transactions"), each with a job that carries it out.
//
// Matching (docs/architecture.md, "Delivery"): a subscription's emitter is the exact emitter id or the glob of
// its kind in the same account (emitterGlob: `dc_*` for sources, `p_*` for workflows); its event_name ""
// or "default" selects the default stream "", any other name that stream exactly. A
// listener never receives its own events, inactive webhooks receive nothing, and the
// delivery keeps its own copy of the event (events are trimmed and may be deleted).
import { sql, type Kysely } from "kysely";
import type { StoredEvent } from "../events/stored-event.js";
import { streamOf } from "../subscriptions/event-name.js";
import { newTimeOrderedId } from "../../lib/ids.js";
import { emitterGlob, RESOURCE_KINDS } from "../../lib/resource-kinds.js";
import { enqueueJobs } from "../../queue/enqueue.js";
import { rowInserter } from "../../store/insert-rows.js";
import { preparedQuery } from "../../store/prepared-query.js";
import type { Database, DeliveriesTable } from "../../store/schema.js";
import { scopeOf, writeBeforeCommit } from "../../store/transaction-scope.js";
import type { CommittedDeliveries } from "./committed-deliveries.js";
import type { LoadedDelivery } from "./loaded-delivery.js";
import { deliveryJobs } from "./delivery-job.js";
import { currentDeliveryHops, MAX_DELIVERY_HOPS } from "./hops.js";

export interface FanOutOptions {
  /** Hops of the delivery that caused these events; defaults to the async context's. */
  hops?: number;
  /** When the events were stored (the context's clock): stamps the deliveries and their jobs. */
  now: number;
  /** The subscriptions of the events' one emitter, when the caller read them already (listeningStatement). */
  listening?: Listening;
  /** Where the deliveries are announced once committed (the context's); nowhere when absent. */
  announce?: CommittedDeliveries;
}

export async function fanOut(db: Kysely<Database>, events: StoredEvent[], options: FanOutOptions): Promise<void> {
  if (events.length === 0) return;
  const hops = options.hops ?? currentDeliveryHops();
  if (hops >= MAX_DELIVERY_HOPS) return; // subscription loop guard, see hops.ts
  const { now } = options;
  const deliveries: LoadedDelivery[] = [];

  const groups = groupByEmitter(events);
  for (const group of groups.values()) {
    const { userId, emitterId } = group[0]!;
    const glob = emitterGlob(emitterId);
    const subscriptions = await listeningSubscriptions(db, userId, emitterId, glob, groups.size === 1 ? options.listening : undefined);
    if (subscriptions.length === 0) continue;
    for (const event of group) {
      const listeners = new Map<string, WebhookColumns>(); // exact id and glob may both match: deliver once
      for (const s of subscriptions) {
        if (streamOf(s.event_name) !== event.stream) continue;
        listeners.set(s.listener_id, s);
      }
      if (listeners.size === 0) continue;
      const body = event.json ?? JSON.stringify(event.event ?? null);
      for (const [listenerId, webhook] of listeners) {
        deliveries.push({
          id: newTimeOrderedId("del"),
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
          wh_id: webhook.wh_id ?? null,
          wh_url: webhook.wh_url ?? null,
          wh_active: webhook.wh_active ?? null,
          wh_signing_secret: webhook.wh_signing_secret ?? null,
          wh_previous_secret: webhook.wh_previous_secret ?? null,
          wh_previous_secret_expires_at: webhook.wh_previous_secret_expires_at ?? null,
        });
      }
    }
  }
  if (deliveries.length === 0) return;
  // Nothing in the transaction reads them back: on PostgreSQL they go with its other deferred
  // writes, their jobs and its NOTIFY in one statement (store/deferred-writes.ts).
  for (let i = 0; i < deliveries.length; i += 200) await writeBeforeCommit(db, insertDeliveries.compile(db, deliveries.slice(i, i + 200)));
  // Announced before their jobs are enqueued: a job handed to this process's worker starts at
  // the commit (queue/local-handoff.ts), and the after-commit callbacks run in the order they
  // were registered, so the worker has the rows before it asks for them (else it reads them).
  options.announce?.announceOnCommit(db, deliveries);
  await enqueueJobs(db, deliveryJobs(deliveries, now), now);
}

const insertDeliveries = rowInserter("deliveries", {
  id: true,
  user_id: true,
  listener_id: true,
  emitter_id: true,
  event_id: true,
  stream: true,
  event: true,
  hops: true,
  status: true,
  attempts: true,
  next_attempt_at: true,
  last_attempt_at: true,
  created_at: true,
  updated_at: true,
});

/** Events by account and emitter (ids hold no NUL, so the two joined by one are a key). */
function groupByEmitter(events: StoredEvent[]): Map<string, StoredEvent[]> {
  const groups = new Map<string, StoredEvent[]>();
  for (const event of events) {
    const key = `${event.userId}\u0000${event.emitterId}`;
    const list = groups.get(key);
    if (list) list.push(event);
    else groups.set(key, [event]);
  }
  return groups;
}

// What webhook ids start with: only active webhooks listen.
const WEBHOOK_ID_START = `${RESOURCE_KINDS.webhook.prefix}_`;

// On the path of every emit: prepared once (store/prepared-query.ts).
const listeningQuery = preparedQuery((db, userId: string, emitterId: string, glob: string) =>
  db
    .selectFrom("subscriptions as s")
    .leftJoin("webhooks as w", (join) => join.onRef("w.id", "=", "s.listener_id").onRef("w.user_id", "=", "s.user_id"))
    // The webhook's columns go to the delivery worker with the deliveries (committed-deliveries.ts).
    .select([
      "s.listener_id",
      "s.event_name",
      "w.id as wh_id",
      "w.url as wh_url",
      "w.active as wh_active",
      "w.signing_secret as wh_signing_secret",
      "w.previous_secret as wh_previous_secret",
      "w.previous_secret_expires_at as wh_previous_secret_expires_at",
    ])
    .where("s.user_id", "=", userId)
    .where("s.emitter_id", "in", [emitterId, glob])
    .where("s.listener_id", "!=", emitterId)
    // substr, not LIKE: case-sensitive on both databases, as idPrefix is.
    .where((eb) =>
      eb.or([eb("w.active", "=", 1), eb(sql`substr(s.listener_id, 1, ${sql.lit(WEBHOOK_ID_START.length)})`, "!=", WEBHOOK_ID_START)]),
    ),
);

/** Subscriptions of an emitter whose listener may receive, with the webhook's columns for webhook listeners (null otherwise). */
export type Listening = Array<{ listener_id: string; event_name: string } & WebhookColumns>;
type WebhookColumns = Omit<LoadedDelivery, keyof DeliveriesTable>;

/**
 * The subscriptions query, not run: a caller may read it within a statement of its own (the
 * events INSERT on PostgreSQL) and hand the rows to fanOut as `listening`.
 */
export function listeningStatement(db: Kysely<Database>, userId: string, emitterId: string) {
  return listeningQuery.compile(db, userId, emitterId, emitterGlob(emitterId));
}

/**
 * The emitter's subscriptions whose listener may receive: every source and workflow, and
 * webhooks of the same account that are active — one query, read once per grouped
 * transaction (its units are mostly executions of the same emitter).
 */
async function listeningSubscriptions(
  db: Kysely<Database>,
  userId: string,
  emitterId: string,
  glob: string,
  given?: Listening,
): Promise<Listening> {
  const memo = scopeOf(db)?.memo;
  const key = `listening:${userId}:${emitterId}`;
  const known = memo?.get(key) as Listening | undefined;
  if (known) return known;
  const rows = given ?? (await listeningQuery(db, userId, emitterId, glob)).rows;
  memo?.set(key, rows);
  return rows;
}
