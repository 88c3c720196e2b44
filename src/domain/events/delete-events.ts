// Deleting stored events of an emitter by inclusive id range (spec: DELETE
// /sources/{id}/events). The route only queues this; a worker runs it.
import type { Kysely } from "kysely";
import { invalid } from "../../lib/errors.js";
import type { Database } from "../../store/schema.js";
import { parseEventId } from "./event-ids.js";
import type { SummaryPageCache } from "./summary-page-cache.js";

export interface EventRange {
  startId?: string;
  endId?: string;
}

export function validateEventRange(range: EventRange): EventRange {
  for (const [field, id] of [
    ["start_id", range.startId],
    ["end_id", range.endId],
  ] as const) {
    if (id !== undefined && !parseEventId(id)) throw invalid(`${field} must be an event id like 1700000000000-0`);
  }
  return range;
}

export async function deleteEventRange(
  pages: SummaryPageCache,
  db: Kysely<Database>,
  emitterId: string,
  range: EventRange,
): Promise<number> {
  pages.forgetEmitterPages(emitterId);
  let query = db.deleteFrom("events").where("emitter_id", "=", emitterId);
  const start = range.startId ? parseEventId(range.startId) : undefined;
  const end = range.endId ? parseEventId(range.endId) : undefined;
  if (start) query = query.where((eb) => eb.or([eb("ms", ">", start.ms), eb.and([eb("ms", "=", start.ms), eb("seq", ">=", start.seq)])]));
  if (end) query = query.where((eb) => eb.or([eb("ms", "<", end.ms), eb.and([eb("ms", "=", end.ms), eb("seq", "<=", end.seq)])]));
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Every event of an emitter, as the emitter itself is deleted. */
export async function deleteEmitterEvents(pages: SummaryPageCache, db: Kysely<Database>, emitterId: string): Promise<void> {
  pages.forgetEmitterPages(emitterId);
  await db.deleteFrom("events").where("emitter_id", "=", emitterId).execute();
}
