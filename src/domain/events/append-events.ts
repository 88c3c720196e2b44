// Stores events of one emitter in the caller's transaction, keeps the newest 100 per stream,
// and writes the deliveries they cause (fanOut) in that same transaction. Sources and
// workflows both store their events here. In a grouped transaction (store/group-commit.ts)
// the emitter's newest id is read once and each stream is trimmed once, before the commit.
import { sql, type Kysely } from "kysely";
import { fanOut } from "../../delivery/fan-out.js";
import { randomString } from "../../lib/ids.js";
import { preparedQuery } from "../../store/prepared-query.js";
import type { Database } from "../../store/schema.js";
import { formatEventId, nextEventKey, type EventKey } from "./event-ids.js";
import type { StoredEvent, StreamName } from "./stored-event.js";
import { isUniqueViolation } from "../../store/unique-violation.js";
import { isPostgres } from "../../store/dialect-of.js";
import { onceBeforeCommit, scopeOf } from "../../store/transaction-scope.js";
import { forgetEmitterPages } from "./summary-page-cache.js";

export const EVENTS_KEPT_PER_STREAM = 100;

export interface NewEvent {
  stream: StreamName;
  event: unknown;
  /** The emit's own id, summary and ts, when given. */
  meta?: { id?: string | number; summary?: string; ts?: number };
}

// Every execution stores through here: the queries are prepared once (store/prepared-query.ts).
const newestOfEmitter = preparedQuery((db, emitterId: string) =>
  db.selectFrom("events").select(["ms", "seq"]).where("emitter_id", "=", emitterId).orderBy("ms", "desc").orderBy("seq", "desc").limit(1),
);
const insertOne = preparedQuery((db, emitterId: string, ms: number, seq: number, id: string, userId: string, stream: string, event: string, metadata: string) =>
  db.insertInto("events").values({ emitter_id: emitterId, ms, seq, id, user_id: userId, stream, event, metadata }),
);
// One statement: everything older than the stream's 100th newest event goes (nothing while
// the stream holds fewer).
const trimStream = preparedQuery((db, emitterId: string, stream: string) =>
  db
    .deleteFrom("events")
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream)
    .where(
      sql<boolean>`(ms, seq) < (select e.ms, e.seq from events e where e.emitter_id = ${emitterId} and e.stream = ${stream} order by e.ms desc, e.seq desc limit 1 offset ${sql.lit(EVENTS_KEPT_PER_STREAM - 1)})`,
    ),
);

export async function appendEvents(db: Kysely<Database>, input: { userId: string; emitterId: string; nowMs: number; events: NewEvent[] }): Promise<StoredEvent[]> {
  if (input.events.length === 0) return [];
  forgetEmitterPages(input.emitterId);
  let floor = await floorOf(db, input.emitterId);
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
    const json = JSON.stringify(event);
    stored.push({ id, userId: input.userId, emitterId: input.emitterId, stream: item.stream, event, metadata, indexedAtMs: key.ms, json });
    rows.push({ emitter_id: input.emitterId, ms: key.ms, seq: key.seq, id, user_id: input.userId, stream: item.stream, event: json, metadata: JSON.stringify(metadata) });
  }
  if (rows.length === 1) {
    const r = rows[0]!;
    await insertOne(db, r.emitter_id, r.ms, r.seq, r.id, r.user_id, r.stream, r.event, r.metadata);
  } else {
    await db.insertInto("events").values(rows).execute();
  }
  scopeOf(db)?.memo.set(floorKey(input.emitterId), floor);
  if (!isPostgres(db)) {
    if (storedHere.size >= 100_000) storedHere.clear();
    storedHere.add(input.emitterId);
  }
  for (const stream of new Set(rows.map((r) => r.stream))) {
    await onceBeforeCommit(db, `trim:${input.emitterId}:${stream}`, async () => {
      await trimStream(db, input.emitterId, stream);
    });
  }
  await fanOut(db, stored);
  return stored;
}

const floorKey = (emitterId: string) => `floor:${emitterId}`;

// On SQLite this process is the only writer: once it stored an event of an emitter, every id
// it makes later is higher (event-ids.ts), so the emitter's newest id need not be read again.
const storedHere = new Set<string>();

/** The emitter's newest stored id: read once per transaction, then kept by appendEvents. */
async function floorOf(db: Kysely<Database>, emitterId: string): Promise<EventKey | undefined> {
  if (storedHere.has(emitterId) && !isPostgres(db)) return undefined;
  const memo = scopeOf(db)?.memo;
  if (memo?.has(floorKey(emitterId))) return memo.get(floorKey(emitterId)) as EventKey | undefined;
  const newest = (await newestOfEmitter(db, emitterId)).rows[0];
  return newest ? { ms: Number(newest.ms), seq: Number(newest.seq) } : undefined;
}

/**
 * Runs a transaction that stores events, again when it lost an event-id race: two processes
 * storing events of one emitter in the same millisecond may pick the same id; the loser's
 * transaction rolls back and, tried again, reads the winner's id as its floor. Every caller
 * of appendEvents stores through this, so no caller has to re-run user code over a clash.
 */
export async function retryOnEventIdClash<T>(store: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store();
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 5) throw error;
    }
  }
}
