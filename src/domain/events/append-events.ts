// Stores events of one emitter in the caller's transaction, keeps the newest 100 per stream,
// and writes the deliveries they cause (fanOut) in that same transaction. Sources and
// workflows both store their events here. In a grouped transaction (store/group-commit.ts)
// the emitter's newest id is read once and each stream is trimmed once, before the commit.
// Where the storage can (PostgreSQL), that read is part of the first INSERT, and the trims go
// with the transaction's other deferred writes (store/deferred-writes.ts). Every event passes
// the emitter's and account's limits first (event-limits.ts).
import { sql, type Kysely } from "kysely";
import { fanOut, type Listening } from "../deliveries/fan-out.js";
import { randomString } from "../../lib/ids.js";
import { rowInserter } from "../../store/insert-rows.js";
import { preparedQuery } from "../../store/prepared-query.js";
import type { Database } from "../../store/schema.js";
import { formatEventId, nextEventKey, type EventKey } from "./event-ids.js";
import { insertAboveNewest, type EventDraft } from "./insert-above-newest.js";
import type { StoredEvent, StreamName } from "./stored-event.js";
import { isUniqueViolation } from "../../store/unique-violation.js";
import { storageOf } from "../../store/storage-dialect.js";
import { onceBeforeCommit, scopeOf, writeBeforeCommit } from "../../store/transaction-scope.js";
import type { InProcessState } from "../in-process-state.js";
import type { EventLimits } from "./event-limits.js";

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
const insertEvents = rowInserter("events", {
  emitter_id: true,
  ms: true,
  seq: true,
  id: true,
  user_id: true,
  stream: true,
  event: true,
  metadata: true,
});
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

/** What appendEvents keeps up to date in the context: cached pages, emitters written here, announcements. */
export type EventWriteState = Pick<InProcessState, "summaryPages" | "emittersWrittenHere" | "committedDeliveries">;

export async function appendEvents(
  state: EventWriteState,
  db: Kysely<Database>,
  input: { userId: string; emitterId: string; nowMs: number; events: NewEvent[]; limits: EventLimits },
): Promise<StoredEvent[]> {
  if (input.events.length === 0) return [];
  state.summaryPages.forgetEmitterPages(input.emitterId);
  const drafts = input.events.map((item) => draftOf(item, input.emitterId));
  const refusals = await input.limits.check(db, input, drafts);
  refusals.forEach((refused, i) => {
    if (refused) drafts[i] = draftOf({ stream: "$errors", event: refused.error }, input.emitterId);
  });
  const memo = scopeOf(db)?.memo;
  let keys: EventKey[];
  let listening: Listening | undefined;
  const storage = storageOf(db);
  if (storage.insertEventsAboveNewest && !memo?.has(floorKey(input.emitterId))) {
    // The first store of this emitter in the transaction: newest id, INSERT and the
    // subscriptions of the fan-out in one statement (insert-above-newest.ts).
    ({ keys, listening } = await insertAboveNewest(db, storage.insertEventsAboveNewest, input, drafts));
  } else {
    let floor = await floorOf(db, storage.soleWriter && state.emittersWrittenHere.has(input.emitterId), input.emitterId);
    keys = drafts.map(() => (floor = nextEventKey(input.nowMs, floor)));
    const rows = drafts.map((d, i) => ({
      emitter_id: input.emitterId,
      ms: keys[i]!.ms,
      seq: keys[i]!.seq,
      id: formatEventId(keys[i]!),
      user_id: input.userId,
      stream: d.stream,
      event: d.json,
      metadata: d.metadataJson,
    }));
    await insertEvents.execute(db, rows);
  }
  memo?.set(floorKey(input.emitterId), keys[keys.length - 1]);
  if (storage.soleWriter) {
    const writtenHere = state.emittersWrittenHere;
    if (writtenHere.size >= 100_000) writtenHere.clear();
    writtenHere.add(input.emitterId);
  }
  const stored: StoredEvent[] = drafts.map((d, i) => ({
    id: formatEventId(keys[i]!),
    userId: input.userId,
    emitterId: input.emitterId,
    stream: d.stream,
    event: d.event,
    metadata: d.metadata,
    indexedAtMs: keys[i]!.ms,
    json: d.json,
  }));
  for (const stream of new Set(drafts.map((d) => d.stream))) {
    // Nothing in the transaction reads past the trim: on PostgreSQL it goes with the other
    // deferred writes (store/deferred-writes.ts), still inside the transaction.
    await onceBeforeCommit(db, `trim:${input.emitterId}:${stream}`, () =>
      writeBeforeCommit(db, trimStream.compile(db, input.emitterId, stream)),
    );
  }
  await fanOut(db, stored, { now: input.nowMs, listening, announce: state.committedDeliveries });
  return stored;
}

interface Draft extends EventDraft {
  event: unknown;
  metadata: Record<string, unknown>;
}

function draftOf(item: NewEvent, emitterId: string): Draft {
  const metadata: Record<string, unknown> = { emit_id: randomString(27), name: item.stream, emitter_id: emitterId };
  if (item.meta?.id !== undefined) metadata.id = item.meta.id;
  if (item.meta?.summary !== undefined) metadata.summary = item.meta.summary;
  if (item.meta?.ts !== undefined) metadata.ts = item.meta.ts;
  const event = item.event === undefined ? null : item.event;
  return { stream: item.stream, event, json: JSON.stringify(event), metadata, metadataJson: JSON.stringify(metadata) };
}

const floorKey = (emitterId: string) => `floor:${emitterId}`;

/**
 * The emitter's newest stored id: read once per transaction, then kept by appendEvents.
 * As the database's only writer (SQLite), once this process stored an event of an emitter
 * (`writtenHere`, Ctx.emittersWrittenHere), every id it makes later is higher (event-ids.ts),
 * so the emitter's newest id need not be read again.
 */
async function floorOf(db: Kysely<Database>, writtenHere: boolean, emitterId: string): Promise<EventKey | undefined> {
  if (writtenHere) return undefined;
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
