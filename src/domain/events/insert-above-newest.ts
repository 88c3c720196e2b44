// Where the storage can (PostgreSQL), one statement stores an emitter's events above its
// newest stored id and reads the subscriptions their fan-out needs
// (store/postgres-insert-events.ts). The events get this process's next keys; one execution's
// keys are consecutive in one millisecond (event-ids.ts), so the first key decides them all.
import type { Kysely } from "kysely";
import { listeningStatement, type Listening } from "../deliveries/fan-out.js";
import type { Database } from "../../store/schema.js";
import type { StorageDialect } from "../../store/storage-dialect.js";
import { nextEventKey, noteEventKey, type EventKey } from "./event-ids.js";

export interface EventDraft {
  stream: string;
  json: string;
  metadataJson: string;
}

export async function insertAboveNewest(
  db: Kysely<Database>,
  insert: NonNullable<StorageDialect["insertEventsAboveNewest"]>,
  input: { userId: string; emitterId: string; nowMs: number },
  drafts: EventDraft[],
): Promise<{ keys: EventKey[]; listening: Listening }> {
  const first = nextEventKey(input.nowMs);
  for (let i = 1; i < drafts.length; i++) nextEventKey(input.nowMs);
  const rows = {
    emitterId: input.emitterId,
    userId: input.userId,
    first,
    streams: drafts.map((d) => d.stream),
    events: drafts.map((d) => d.json),
    metadata: drafts.map((d) => d.metadataJson),
  };
  const { start, listening } = await insert<Listening[number]>(db, rows, listeningStatement(db, input.userId, input.emitterId));
  const keys = drafts.map((_, i) => ({ ms: start.ms, seq: start.seq + i }));
  noteEventKey(keys[keys.length - 1]!);
  return { keys, listening };
}
