// Event summaries of one emitter's stream, newest first, with opaque cursors. Shared by
// source and workflow routes. The owner check, the stream's count and the page are one query:
// this is the hottest read of the API.
import type { Kysely } from "kysely";
import type { Ctx } from "../context.js";
import { invalid, notFound } from "../../lib/errors.js";
import { preparedQuery } from "../../store/prepared-query.js";
import { decodeCursor, encodeCursor, type PageRequest } from "../../store/paginate.js";
import type { Database } from "../../store/schema.js";
import { parseEventId } from "./event-ids.js";
import { eventSummary, type EventRow, type EventSummary, type EventSummaryPage } from "./event-summary.js";

function cursorKey(cursor: string) {
  const [, id] = decodeCursor(cursor);
  const key = parseEventId(id);
  if (!key) throw invalid("invalid cursor");
  return key;
}

/** The tables of emitters whose streams are listed: an emitter belongs to its row's user. */
export type EmitterTable = "sources" | "workflows";

type OwnedRow = { n: number | string | bigint | null } & { [K in keyof EventRow]: EventRow[K] | null };
type Order = "asc" | "desc";
type Cursor = { ms: number; seq: number; direction: "after" | "before" };

/**
 * One row per event of the page (none of them when the stream is empty: one row of nulls),
 * each with the stream's count; no row at all when the emitter is not the user's. The page
 * is a subquery joined to the owner's row, so an empty stream still proves ownership.
 */
function ownedPage(db: Kysely<Database>, table: EmitterTable, emitterId: string, userId: string, stream: string, limit: number, order: Order, cursor?: Cursor) {
  return db
    .selectFrom(table)
    .leftJoin(
      (eb) => {
        let page = eb.selectFrom("events").select(["id", "ms", "seq", "event", "metadata"]).where("emitter_id", "=", emitterId).where("stream", "=", stream);
        if (cursor) {
          const { ms, seq } = cursor;
          const beyond = cursor.direction === "after" ? "<" : ">";
          page = page.where((e) => e.or([e("ms", beyond, ms), e.and([e("ms", "=", ms), e("seq", beyond, seq)])]));
        }
        return page.orderBy("ms", order).orderBy("seq", order).limit(limit).as("e");
      },
      (join) => join.onTrue(),
    )
    .select((eb) => [
      "e.id",
      "e.ms",
      "e.event",
      "e.metadata",
      eb.selectFrom("events").select(eb.fn.countAll().as("n")).where("emitter_id", "=", emitterId).where("stream", "=", stream).as("n"),
    ])
    .where(`${table}.id`, "=", emitterId)
    .where(`${table}.user_id`, "=", userId)
    .orderBy("e.ms", order)
    .orderBy("e.seq", order);
}

function pageQueries(table: EmitterTable) {
  return {
    newest: preparedQuery((db, emitterId: string, userId: string, stream: string, limit: number) => ownedPage(db, table, emitterId, userId, stream, limit, "desc")),
    after: preparedQuery((db, emitterId: string, userId: string, stream: string, ms: number, seq: number, limit: number) =>
      ownedPage(db, table, emitterId, userId, stream, limit, "desc", { ms, seq, direction: "after" }),
    ),
    before: preparedQuery((db, emitterId: string, userId: string, stream: string, ms: number, seq: number, limit: number) =>
      ownedPage(db, table, emitterId, userId, stream, limit, "asc", { ms, seq, direction: "before" }),
    ),
  };
}

const PAGE_QUERIES = { sources: pageQueries("sources"), workflows: pageQueries("workflows") };

/** A page of the stream of an emitter of `table` owned by `userId`; not found otherwise. */
export async function listEventSummaries({ ctx, table, emitterId, userId, stream, page, expand }: { ctx: Ctx; table: EmitterTable; emitterId: string; userId: string; stream: string; page: PageRequest; expand: boolean }): Promise<EventSummaryPage> {
  const queries = PAGE_QUERIES[table];
  let result;
  if (page.before) {
    const { ms, seq } = cursorKey(page.before);
    result = await queries.before(ctx.db, emitterId, userId, stream, ms, seq, page.limit);
  } else if (page.after) {
    const { ms, seq } = cursorKey(page.after);
    result = await queries.after(ctx.db, emitterId, userId, stream, ms, seq, page.limit);
  } else {
    result = await queries.newest(ctx.db, emitterId, userId, stream, page.limit);
  }
  const found = result.rows as OwnedRow[];
  if (found.length === 0) throw notFound();
  const rows = found.filter((row): row is OwnedRow & EventRow => row.id !== null);
  if (page.before) rows.reverse();
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    page_info: {
      total_count: Number(found[0]!.n ?? 0),
      count: rows.length,
      start_cursor: first ? encodeCursor([Number(first.ms), first.id]) : "",
      end_cursor: last ? encodeCursor([Number(last.ms), last.id]) : "",
    },
    rows,
    expand,
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
