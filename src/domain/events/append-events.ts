// Stores events of one emitter in the caller's transaction, keeps the newest 100 per stream,
// and writes the deliveries they cause (fanOut) in that same transaction. Sources and
// workflows both store their events here.
import type { Kysely } from "kysely";
import { fanOut } from "../../delivery/fan-out.js";
import { randomString } from "../../lib/ids.js";
import type { Database } from "../../store/schema.js";
import { formatEventId, nextEventKey } from "./event-ids.js";
import type { StoredEvent, StreamName } from "./stored-event.js";

export const EVENTS_KEPT_PER_STREAM = 100;

export interface NewEvent {
  stream: StreamName;
  event: unknown;
  /** The emit's own id, summary and ts, when given. */
  meta?: { id?: string | number; summary?: string; ts?: number };
}

export async function appendEvents(db: Kysely<Database>, input: { userId: string; emitterId: string; nowMs: number; events: NewEvent[] }): Promise<StoredEvent[]> {
  if (input.events.length === 0) return [];
  const newest = await db
    .selectFrom("events")
    .select(["ms", "seq"])
    .where("emitter_id", "=", input.emitterId)
    .orderBy("ms", "desc")
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  let floor = newest ? { ms: Number(newest.ms), seq: Number(newest.seq) } : undefined;
  const stored: StoredEvent[] = [];
  const rows: Database["events"][] = [];
  for (const item of input.events) {
    const key = nextEventKey(input.nowMs, floor);
    floor = key;
    const id = formatEventId(key);
    const metadata: Record<string, unknown> = { emit_id: randomString(27), name: item.stream, emitter_id: input.emitterId };
    if (item.meta?.id !== undefined) metadata.id = item.meta.id;
    if (item.meta?.summary !== undefined) metadata.summary = item.meta.summary;
    if (item.meta?.ts !== undefined) metadata.ts = item.meta.ts;
    const event = item.event === undefined ? null : item.event;
    stored.push({ id, userId: input.userId, emitterId: input.emitterId, stream: item.stream, event, metadata, indexedAtMs: key.ms });
    rows.push({ emitter_id: input.emitterId, ms: key.ms, seq: key.seq, id, user_id: input.userId, stream: item.stream, event: JSON.stringify(event), metadata: JSON.stringify(metadata) });
  }
  await db.insertInto("events").values(rows).execute();
  for (const stream of new Set(rows.map((r) => r.stream))) await trimStream(db, input.emitterId, stream);
  await fanOut(db, stored);
  return stored;
}

/** Drops all but the newest 100 events of one stream. */
async function trimStream(db: Kysely<Database>, emitterId: string, stream: string): Promise<void> {
  const cutoff = await db
    .selectFrom("events")
    .select(["ms", "seq"])
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream)
    .orderBy("ms", "desc")
    .orderBy("seq", "desc")
    .offset(EVENTS_KEPT_PER_STREAM - 1)
    .limit(1)
    .executeTakeFirst();
  if (!cutoff) return;
  const ms = Number(cutoff.ms);
  const seq = Number(cutoff.seq);
  await db
    .deleteFrom("events")
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream)
    .where((eb) => eb.or([eb("ms", "<", ms), eb.and([eb("ms", "=", ms), eb("seq", "<", seq)])]))
    .execute();
}
