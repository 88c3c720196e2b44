// Event summaries of one emitter's stream, newest first, with opaque cursors. Shared by
// source and workflow routes; the caller checks that the emitter belongs to the actor.
import type { Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { preparedQuery } from "../../store/prepared-query.js";
import { decodeCursor, encodeCursor, type Page, type PageRequest } from "../../store/paginate.js";
import { parseEventId } from "./event-ids.js";
import { eventSummary, type EventSummary } from "./event-summary.js";

function cursorKey(cursor: string) {
  const [, id] = decodeCursor(cursor);
  const key = parseEventId(id);
  if (!key) throw invalid("invalid cursor");
  return key;
}

const SUMMARY_COLUMNS = ["id", "ms", "event", "metadata"] as const;

// The page queries are prepared once (src/store/prepared-query.ts): this is a hot read path.
const countStream = preparedQuery((db, emitterId: string, stream: string) =>
  db.selectFrom("events").select((eb) => eb.fn.countAll().as("n")).where("emitter_id", "=", emitterId).where("stream", "=", stream),
);
const newestPage = preparedQuery((db, emitterId: string, stream: string, limit: number) =>
  db.selectFrom("events").select(SUMMARY_COLUMNS).where("emitter_id", "=", emitterId).where("stream", "=", stream).orderBy("ms", "desc").orderBy("seq", "desc").limit(limit),
);
const pageAfter = preparedQuery((db, emitterId: string, stream: string, ms: number, seq: number, limit: number) =>
  db
    .selectFrom("events")
    .select(SUMMARY_COLUMNS)
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream)
    .where((eb) => eb.or([eb("ms", "<", ms), eb.and([eb("ms", "=", ms), eb("seq", "<", seq)])]))
    .orderBy("ms", "desc")
    .orderBy("seq", "desc")
    .limit(limit),
);
const pageBefore = preparedQuery((db, emitterId: string, stream: string, ms: number, seq: number, limit: number) =>
  db
    .selectFrom("events")
    .select(SUMMARY_COLUMNS)
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream)
    .where((eb) => eb.or([eb("ms", ">", ms), eb.and([eb("ms", "=", ms), eb("seq", ">", seq)])]))
    .orderBy("ms", "asc")
    .orderBy("seq", "asc")
    .limit(limit),
);

/**
 * `total` is the stream's event count when the caller already read it (together with its
 * ownership check); otherwise it is counted here.
 */
export async function listEventSummaries({ ctx, emitterId, stream, page, expand, total }: { ctx: Ctx; emitterId: string; stream: string; page: PageRequest; expand: boolean; total?: number }): Promise<Page<EventSummary>> {
  if (total === undefined) total = Number((await countStream(ctx.db, emitterId, stream)).rows[0]?.n ?? 0);
  let rows;
  if (page.before) {
    const { ms, seq } = cursorKey(page.before);
    rows = (await pageBefore(ctx.db, emitterId, stream, ms, seq, page.limit)).rows;
    rows.reverse();
  } else if (page.after) {
    const { ms, seq } = cursorKey(page.after);
    rows = (await pageAfter(ctx.db, emitterId, stream, ms, seq, page.limit)).rows;
  } else {
    rows = (await newestPage(ctx.db, emitterId, stream, page.limit)).rows;
  }
  const data = rows.map((row) => eventSummary(row, expand));
  const first = data[0];
  const last = data[data.length - 1];
  return {
    page_info: {
      total_count: total,
      count: data.length,
      start_cursor: first ? encodeCursor([first.indexed_at_ms, first.id]) : "",
      end_cursor: last ? encodeCursor([last.indexed_at_ms, last.id]) : "",
    },
    data,
  };
}

/** Events of a stream newer than `afterId`, oldest first (live tails). Always full events. */
export async function eventsAfter({ ctx, emitterId, stream, afterId, limit }: { ctx: Ctx; emitterId: string; stream: string; afterId?: string; limit: number }): Promise<EventSummary[]> {
  let query = ctx.db.selectFrom("events").select(["id", "ms", "event", "metadata"]).where("emitter_id", "=", emitterId).where("stream", "=", stream);
  const key = afterId ? parseEventId(afterId) : undefined;
  if (key) query = query.where((eb) => eb.or([eb("ms", ">", key.ms), eb.and([eb("ms", "=", key.ms), eb("seq", ">", key.seq)])]));
  const rows = await query.orderBy("ms", "asc").orderBy("seq", "asc").limit(limit).execute();
  return rows.map((row) => eventSummary(row, true));
}

/** The newest event id of a stream, so a live tail without Last-Event-ID starts from now. */
export async function newestEventId(ctx: Ctx, emitterId: string, stream: string): Promise<string | undefined> {
  const row = await ctx.db.selectFrom("events").select("id").where("emitter_id", "=", emitterId).where("stream", "=", stream).orderBy("ms", "desc").orderBy("seq", "desc").limit(1).executeTakeFirst();
  return row?.id;
}
