// Keyset pagination shared by every list: newest first by (created_at, id), opaque cursors.
import { sql, type SelectQueryBuilder } from "kysely";
import { invalid } from "../lib/errors.js";

export interface PageRequest {
  limit: number;
  after?: string;
  before?: string;
}

export interface PageInfo {
  total_count: number;
  count: number;
  start_cursor: string;
  end_cursor: string;
}

export interface Page<T> {
  page_info: PageInfo;
  data: T[];
}

export function encodeCursor(key: (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

const CURSOR_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function decodeCursor(cursor: string): [number, string] {
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    // Only keys this module could have made: a safe integer (ms) and a printable id. Anything
    // else would reach the database as a value PostgreSQL rejects (a 5xx for bad input).
    if (Array.isArray(key) && key.length === 2 && Number.isSafeInteger(key[0]) && typeof key[1] === "string" && CURSOR_ID.test(key[1])) {
      return [key[0], key[1]];
    }
  } catch {
    // fall through to the validation error
  }
  throw invalid("invalid cursor");
}

export function pageInfo<T>(rows: T[], total: number, keyOf: (row: T) => (string | number)[]): PageInfo {
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    total_count: total,
    count: rows.length,
    start_cursor: first ? encodeCursor(keyOf(first)) : "",
    end_cursor: last ? encodeCursor(keyOf(last)) : "",
  };
}

/**
 * Pages through `query` (already filtered to one account), newest first.
 * `table` names the table whose created_at/id columns order the list.
 */
export async function paginateByCreation<Row extends { created_at: number; id: string }>(
  query: SelectQueryBuilder<any, any, Row>,
  table: string,
  page: PageRequest,
): Promise<Page<Row>> {
  const createdAt = sql.ref(`${table}.created_at`);
  const id = sql.ref(`${table}.id`);
  const countRow = await query
    .clearSelect()
    .select((eb: any) => eb.fn.countAll().as("n"))
    .executeTakeFirst();
  const total = Number((countRow as any)?.n ?? 0);

  let rows: Row[];
  if (page.before) {
    const [t, k] = decodeCursor(page.before);
    rows = await query
      .where(sql<boolean>`(${createdAt} > ${t} or (${createdAt} = ${t} and ${id} > ${k}))`)
      .orderBy(createdAt as any, "asc")
      .orderBy(id as any, "asc")
      .limit(page.limit)
      .execute();
    rows.reverse();
  } else {
    let q = query;
    if (page.after) {
      const [t, k] = decodeCursor(page.after);
      q = q.where(sql<boolean>`(${createdAt} < ${t} or (${createdAt} = ${t} and ${id} < ${k}))`);
    }
    rows = await q
      .orderBy(createdAt as any, "desc")
      .orderBy(id as any, "desc")
      .limit(page.limit)
      .execute();
  }
  return { page_info: pageInfo(rows, total, (r) => [r.created_at, r.id]), data: rows };
}
