// Event summaries of one emitter's stream, newest first, with opaque cursors, for source and
// workflow routes alike; the hottest read of the API.
import type { Ctx } from "../context.js";
import { invalid, notFound } from "../../lib/errors.js";
import { preparedQuery } from "../../store/prepared-query.js";
import { decodeCursor, encodeCursor, type Page, type PageRequest } from "../../store/paginate.js";
import { parseEventId } from "./event-ids.js";
import {
  eventSummary,
  summaryPageJson,
  summaryPageObject,
  type EventRow,
  type EventSummary,
  type EventSummaryPage,
} from "./event-summary.js";

function cursorKey(cursor: string) {
  const [, id] = decodeCursor(cursor);
  const key = parseEventId(id);
  if (!key) throw invalid("invalid cursor");
  return key;
}

/** The tables of emitters whose streams are listed: an emitter belongs to its row's user. */
export type EmitterTable = "sources" | "workflows";

// The count and the owner check are one query, the page another: measured on SQLite, one
// statement joining both was slower than the two (the page had to be materialised and sorted
// again). All are prepared once per dialect (store/prepared-query.ts).

/** No row when the emitter is not the user's; otherwise the stream's count. */
const countOwned = (table: EmitterTable) =>
  preparedQuery((db, emitterId: string, userId: string, stream: string) =>
    db
      .selectFrom(table)
      .select((eb) =>
        eb.selectFrom("events").select(eb.fn.countAll().as("c")).where("emitter_id", "=", emitterId).where("stream", "=", stream).as("n"),
      )
      .where("id", "=", emitterId)
      .where("user_id", "=", userId),
  );
const COUNT_OWNED = { sources: countOwned("sources"), workflows: countOwned("workflows") };

const COLUMNS = ["id", "ms", "event", "metadata"] as const;
const newestPage = preparedQuery((db, emitterId: string, stream: string, limit: number) =>
  db
    .selectFrom("events")
    .select(COLUMNS)
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream)
    .orderBy("ms", "desc")
    .orderBy("seq", "desc")
    .limit(limit),
);
/** Older than the cursor, newest first ("desc", after=), or newer, oldest first ("asc", before=). */
const pageBeyond = (order: "asc" | "desc") => {
  const beyond = order === "desc" ? "<" : ">";
  return preparedQuery((db, emitterId: string, stream: string, ms: number, seq: number, limit: number) =>
    db
      .selectFrom("events")
      .select(COLUMNS)
      .where("emitter_id", "=", emitterId)
      .where("stream", "=", stream)
      .where((eb) => eb.or([eb("ms", beyond, ms), eb.and([eb("ms", "=", ms), eb("seq", beyond, seq)])]))
      .orderBy("ms", order)
      .orderBy("seq", order)
      .limit(limit),
  );
};
const pageAfter = pageBeyond("desc");
const pageBefore = pageBeyond("asc");

/** A page of the stream of an emitter of `table` owned by `userId`; not found otherwise. */
export async function listEventSummaries({
  ctx,
  table,
  emitterId,
  userId,
  stream,
  page,
  expand,
}: {
  ctx: Ctx;
  table: EmitterTable;
  emitterId: string;
  userId: string;
  stream: string;
  page: PageRequest;
  expand: boolean;
}): Promise<EventSummaryPage> {
  let rows: EventRow[];
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
  // Counted after the page is read: events committed between two reads then make the count
  // larger than the page, never smaller (read first, a count of 0 could come with two events).
  // Nothing is answered before the ownership check below.
  const owned = (await COUNT_OWNED[table](ctx.db, emitterId, userId, stream)).rows[0];
  if (!owned) throw notFound();
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    page_info: {
      total_count: Number(owned.n ?? 0),
      count: rows.length,
      start_cursor: first ? encodeCursor([Number(first.ms), first.id]) : "",
      end_cursor: last ? encodeCursor([Number(last.ms), last.id]) : "",
    },
    rows,
    expand,
  };
}

type PageArgs = Parameters<typeof listEventSummaries>[0];

/** A page as JSON text, or as objects for callers that reshape it (include/exclude). */
export type SummaryPageResult = { json: string } | { objects: Page<EventSummary> };

/** What identifies a page of an emitter in the page cache. */
const pageCacheKey = (args: Pick<PageArgs, "table" | "stream" | "page" | "expand">) =>
  [args.table, args.stream, args.page.limit, args.page.after ?? "", args.page.before ?? "", args.expand ? 1 : 0].join("\u0000");

/** Reads a page; as JSON text it is served from, or kept in, the page cache on SQLite. */
export async function readSummaryPage(args: PageArgs & { asObjects: boolean }): Promise<SummaryPageResult> {
  if (args.asObjects) return { objects: summaryPageObject(await listEventSummaries(args)) };
  const { ctx, emitterId, userId } = args;
  // Cached pages stay true only while this process is the database's only writer.
  if (!ctx.storage.soleWriter) return { json: summaryPageJson(await listEventSummaries(args)) };
  const request = pageCacheKey(args);
  const hit = ctx.summaryPages.cachedPage(ctx.db, emitterId, userId, request);
  if (hit !== undefined) return { json: hit };
  const generation = ctx.summaryPages.generationOf(emitterId);
  const json = summaryPageJson(await listEventSummaries(args));
  ctx.summaryPages.keepPage(ctx.db, emitterId, userId, request, generation, json);
  return { json };
}

/**
 * The page's JSON text when the page cache holds it for this account, without a promise or a
 * database read; undefined otherwise (readSummaryPage then reads it). For the answer given in
 * front of the HTTP framework (http/cached-reads.ts).
 */
export function cachedSummaryPage(args: Omit<PageArgs, "ctx"> & { ctx: Pick<Ctx, "db" | "summaryPages"> }): string | undefined {
  return args.ctx.summaryPages.cachedPage(args.ctx.db, args.emitterId, args.userId, pageCacheKey(args));
}

/** Events of a stream newer than `afterId`, oldest first (live tails). Always full events. */
export async function eventsAfter({
  ctx,
  emitterId,
  stream,
  afterId,
  limit,
}: {
  ctx: Ctx;
  emitterId: string;
  stream: string;
  afterId?: string;
  limit: number;
}): Promise<EventSummary[]> {
  let query = ctx.db
    .selectFrom("events")
    .select(["id", "ms", "event", "metadata"])
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream);
  const key = afterId ? parseEventId(afterId) : undefined;
  if (key) query = query.where((eb) => eb.or([eb("ms", ">", key.ms), eb.and([eb("ms", "=", key.ms), eb("seq", ">", key.seq)])]));
  const rows = await query.orderBy("ms", "asc").orderBy("seq", "asc").limit(limit).execute();
  return rows.map((row) => eventSummary(row, true));
}

/** The newest event id of a stream, so a live tail without Last-Event-ID starts from now. */
export async function newestEventId(ctx: Ctx, emitterId: string, stream: string): Promise<string | undefined> {
  const row = await ctx.db
    .selectFrom("events")
    .select("id")
    .where("emitter_id", "=", emitterId)
    .where("stream", "=", stream)
    .orderBy("ms", "desc")
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
