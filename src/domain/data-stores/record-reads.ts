// Reading a data store's records. A record past its expiry is never returned, whether or not
// the sweep (expire-records.ts) has removed it yet. Each read is one statement, so it sees a
// record whole: a value is never torn by a write running beside it.
import { invalid, notFound, ServiceError } from "../../lib/errors.js";
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.js";
import type { Ctx } from "../context.js";
import type { Page, PageRequest } from "../../store/paginate.js";
import { recordView, type RecordView } from "./data-store-view.js";
import { findOwnedDataStore } from "./manage-data-stores.js";
import { MAX_KEY_BYTES } from "./record-limits.js";

/** keys() and entries() answer at most this much, so one call cannot fill the service's memory. */
export const MAX_LISTED_KEYS = 100_000;
export const MAX_LISTED_BYTES = 32 * 1024 * 1024;

/** The records of a store that have not expired at `now`. */
export function liveRecords(db: Kysely<Database>, storeId: string, now: number) {
  return db
    .selectFrom("data_store_records")
    .where("store_id", "=", storeId)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]));
}

export interface StoredRecord {
  key: string;
  /** The value's JSON text. */
  value: string;
  updated_at: number;
  expires_at: number | null;
}

/** The live record at `key`, or undefined; the store must be the account's (else a 404). */
export async function readRecord(ctx: Ctx, userId: string, storeId: string, key: string): Promise<StoredRecord | undefined> {
  await findOwnedDataStore(ctx, userId, storeId);
  return liveRecords(ctx.db, storeId, ctx.clock.now())
    .select(["key", "value", "updated_at", "expires_at"])
    .where("key", "=", key)
    .executeTakeFirst();
}

export async function getRecord(ctx: Ctx, userId: string, storeId: string, key: string): Promise<RecordView> {
  const row = await readRecord(ctx, userId, storeId, key);
  if (!row) throw notFound();
  return recordView(row);
}

export async function listKeys(ctx: Ctx, userId: string, storeId: string): Promise<string[]> {
  await findOwnedDataStore(ctx, userId, storeId);
  const rows = await liveRecords(ctx.db, storeId, ctx.clock.now())
    .select("key")
    .orderBy("key")
    .limit(MAX_LISTED_KEYS + 1)
    .execute();
  if (rows.length > MAX_LISTED_KEYS)
    throw new ServiceError("LIMIT_EXCEEDED", `the data store holds over ${MAX_LISTED_KEYS} keys; page through its records instead`);
  return rows.map((row) => row.key);
}

/** Every live record as [key, value JSON] pairs, in key order. */
export async function listEntries(ctx: Ctx, userId: string, storeId: string): Promise<Array<[string, string]>> {
  const store = await findOwnedDataStore(ctx, userId, storeId);
  if (Number(store.bytes) > MAX_LISTED_BYTES)
    throw new ServiceError("LIMIT_EXCEEDED", `the data store holds over ${MAX_LISTED_BYTES} bytes; read it key by key instead`);
  const rows = await liveRecords(ctx.db, storeId, ctx.clock.now())
    .select(["key", "value"])
    .orderBy("key")
    .limit(MAX_LISTED_KEYS + 1)
    .execute();
  if (rows.length > MAX_LISTED_KEYS)
    throw new ServiceError("LIMIT_EXCEEDED", `the data store holds over ${MAX_LISTED_KEYS} keys; page through its records instead`);
  return rows.map((row) => [row.key, row.value]);
}

/** Live records in key order, `limit` at a time; cursors are the keys at either end of a page. */
export async function listRecords(ctx: Ctx, userId: string, storeId: string, page: PageRequest): Promise<Page<RecordView>> {
  await findOwnedDataStore(ctx, userId, storeId);
  const now = ctx.clock.now();
  const live = liveRecords(ctx.db, storeId, now);
  const total = Number((await live.select((eb) => eb.fn.countAll().as("n")).executeTakeFirst())?.n ?? 0);
  const columns = ["key", "value", "updated_at", "expires_at"] as const;
  let rows: StoredRecord[];
  if (page.before) {
    rows = await live.select(columns).where("key", "<", decodeKeyCursor(page.before)).orderBy("key", "desc").limit(page.limit).execute();
    rows.reverse();
  } else {
    let query = live.select(columns).orderBy("key", "asc").limit(page.limit);
    if (page.after) query = query.where("key", ">", decodeKeyCursor(page.after));
    rows = await query.execute();
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    page_info: {
      total_count: total,
      count: rows.length,
      start_cursor: first ? encodeKeyCursor(first.key) : "",
      end_cursor: last ? encodeKeyCursor(last.key) : "",
    },
    data: rows.map(recordView),
  };
}

const encodeKeyCursor = (key: string) => Buffer.from(JSON.stringify([key])).toString("base64url");

function decodeKeyCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(parsed) && parsed.length === 1 && typeof parsed[0] === "string") {
      const key = parsed[0];
      if (Buffer.byteLength(key) <= MAX_KEY_BYTES && !key.includes("\u0000")) return key;
    }
  } catch {
    // fall through to the validation error
  }
  throw invalid("invalid cursor");
}
