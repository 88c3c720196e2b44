// What an emitter may store, checked as its events are stored (append-events.ts), on every
// path — user emits, $logs and $errors the service builds, delivery failure reports:
//  - one event's JSON at most SLUICE_MAX_EVENT_BYTES;
//  - at most SLUICE_MAX_STREAMS_PER_EMITTER named streams (the default stream, $errors and
//    $logs are always allowed);
//  - nothing but $errors entries once the account holds SLUICE_ACCOUNT_STORAGE_MB of events.
// A refused event is replaced by an $errors entry naming the limit; nothing stored is touched.
// The checks are in-memory comparisons: the account's usage (kept by triggers, migration 009)
// is read at most every USAGE_TTL_MS per account, outside the storing transaction (an emit
// never waits for it; until the first read an account counts as under its quota), and an
// emitter's stream names once, and again only for a name not seen before.
import { sql, type Kysely } from "kysely";
import type { Config } from "../../config.js";
import type { Database } from "../../store/schema.js";

const ALWAYS_ALLOWED = new Set(["", "$errors", "$logs"]);
const USAGE_TTL_MS = 2_000;
const MAX_CACHED = 100_000;
const PREVIEW_CHARACTERS = 1024;

export interface EventToStore {
  stream: string;
  /** The event as JSON. */
  json: string;
}

export interface Refusal {
  /** The $errors event that takes the refused event's place. */
  error: { error: { name: string; message: string; stack: string }; original_event: unknown };
}

export interface EventLimits {
  readonly maxEventBytes: number;
  readonly maxStreamsPerEmitter: number;
  readonly quotaBytes: number;
  /** For each event: undefined to store it, or the $errors entry that replaces it. */
  check(db: Kysely<Database>, target: { userId: string; emitterId: string }, events: EventToStore[]): Promise<Array<Refusal | undefined>>;
  /** Bytes of events and data store records the account holds (to within USAGE_TTL_MS). */
  storageUsed(userId: string): Promise<number>;
}

/** `db` is the database itself (not a transaction): usage is read beside the writes. */
export function createEventLimits(
  config: Pick<Config, "maxEventBytes" | "maxStreamsPerEmitter" | "accountStorageBytes">,
  db: Kysely<Database>,
): EventLimits {
  const usage = new Map<string, { bytes: number; at: number }>();
  const reading = new Map<string, Promise<number>>();
  const streams = new Map<string, Set<string>>();

  const readUsage = (userId: string): Promise<number> => {
    let read = reading.get(userId);
    if (read) return read;
    // Events (per emitter) and data store records (per store) count alike.
    read = db
      .selectFrom("emitter_storage")
      .select(sql<string | number | null>`sum(bytes)`.as("bytes"))
      .where("user_id", "=", userId)
      .unionAll(
        db
          .selectFrom("data_stores")
          .select(sql<string | number | null>`sum(bytes)`.as("bytes"))
          .where("user_id", "=", userId),
      )
      .execute()
      .then((rows) => {
        const bytes = rows.reduce((sum, row) => sum + Number(row.bytes ?? 0), 0);
        if (usage.size >= MAX_CACHED) usage.clear();
        usage.set(userId, { bytes, at: performance.now() });
        return bytes;
      })
      .finally(() => reading.delete(userId));
    reading.set(userId, read);
    return read;
  };
  const fresh = (userId: string) => {
    const known = usage.get(userId);
    return known && performance.now() - known.at < USAGE_TTL_MS ? known : undefined;
  };
  const storageUsed = async (userId: string): Promise<number> => fresh(userId)?.bytes ?? readUsage(userId);
  /** What is known now; a stale or missing figure is read for the next time. */
  const knownOverQuota = (userId: string): boolean => {
    if (!fresh(userId)) readUsage(userId).catch(() => undefined); // a failed read is tried again next time
    return (usage.get(userId)?.bytes ?? 0) >= config.accountStorageBytes;
  };

  const streamsOf = async (db: Kysely<Database>, emitterId: string, wanted: string): Promise<Set<string>> => {
    const known = streams.get(emitterId);
    if (known?.has(wanted)) return known;
    const rows = await db.selectFrom("events").select("stream").distinct().where("emitter_id", "=", emitterId).execute();
    const names = new Set(rows.map((r) => r.stream).filter((name) => !ALWAYS_ALLOWED.has(name)));
    if (streams.size >= MAX_CACHED) streams.clear();
    streams.set(emitterId, names);
    return names;
  };

  return {
    maxEventBytes: config.maxEventBytes,
    maxStreamsPerEmitter: config.maxStreamsPerEmitter,
    quotaBytes: config.accountStorageBytes,
    storageUsed,
    async check(db, target, events) {
      const overQuota = knownOverQuota(target.userId);
      const refusals: Array<Refusal | undefined> = [];
      for (const event of events) {
        if (overQuota && event.stream !== "$errors") {
          refusals.push(
            refusal(
              "StorageQuotaExceeded",
              `the account's storage quota of ${config.accountStorageBytes} bytes (SLUICE_ACCOUNT_STORAGE_MB) is used up; the event was not stored`,
              event,
            ),
          );
        } else if (tooLarge(event.json, config.maxEventBytes)) {
          refusals.push(
            refusal(
              "EventTooLarge",
              `an event on stream "${event.stream}" of ${Buffer.byteLength(event.json)} bytes exceeds SLUICE_MAX_EVENT_BYTES (${config.maxEventBytes}); it was not stored`,
              event,
            ),
          );
        } else if (!ALWAYS_ALLOWED.has(event.stream) && !(await admitStream(db, target.emitterId, event.stream))) {
          refusals.push(
            refusal(
              "TooManyStreams",
              `stream "${event.stream}" was refused: an emitter may have ${config.maxStreamsPerEmitter} named streams (SLUICE_MAX_STREAMS_PER_EMITTER) besides the default stream, $errors and $logs`,
              event,
            ),
          );
        } else {
          refusals.push(undefined);
        }
      }
      return refusals;
    },
  };

  async function admitStream(db: Kysely<Database>, emitterId: string, stream: string): Promise<boolean> {
    const names = await streamsOf(db, emitterId, stream);
    if (names.has(stream)) return true;
    if (names.size >= config.maxStreamsPerEmitter) return false;
    names.add(stream);
    return true;
  }
}

/** JSON text is at most 3 bytes per UTF-16 unit: most events need no byte count. */
function tooLarge(json: string, max: number): boolean {
  return json.length * 3 > max && Buffer.byteLength(json) > max;
}

function refusal(name: string, message: string, event: EventToStore): Refusal {
  const preview =
    event.json.length > PREVIEW_CHARACTERS ? { $truncated: true, preview: event.json.slice(0, PREVIEW_CHARACTERS) } : safeParse(event.json);
  return { error: { error: { name, message, stack: `${name}: ${message}` }, original_event: { stream: event.stream, event: preview } } };
}

function safeParse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
