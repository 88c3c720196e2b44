// The API view of a stored event. Without expand=event, an event whose JSON is over 1 KB is
// replaced by {"$truncated": true, "preview": "<its first 1024 characters of JSON>"} and the
// summary's metadata gets `truncated: true`; expand=event always returns the full event.
import type { Page, PageInfo } from "../../store/paginate.js";

export const TRUNCATE_AT_BYTES = 1024;

export interface EventSummary {
  id: string;
  indexed_at_ms: number;
  event: unknown;
  metadata: Record<string, unknown>;
}

export interface EventRow {
  id: string;
  ms: number;
  event: string;
  metadata: string;
}

/** A page of summaries still as stored rows: sent by splicing their stored JSON. */
export interface EventSummaryPage {
  page_info: PageInfo;
  rows: EventRow[];
  expand: boolean;
}

const truncated = (row: EventRow, expand: boolean) => !expand && Buffer.byteLength(row.event) > TRUNCATE_AT_BYTES;

export function eventSummary(row: EventRow, expand: boolean): EventSummary {
  const metadata = JSON.parse(row.metadata) as Record<string, unknown>;
  if (truncated(row, expand)) {
    return {
      id: row.id,
      indexed_at_ms: Number(row.ms),
      event: { $truncated: true, preview: row.event.slice(0, TRUNCATE_AT_BYTES) },
      metadata: { ...metadata, truncated: true },
    };
  }
  return { id: row.id, indexed_at_ms: Number(row.ms), event: JSON.parse(row.event), metadata };
}

/**
 * The JSON of a summary. The stored event and metadata are JSON already (written by
 * JSON.stringify): they are spliced in as they are, instead of being parsed only to be
 * serialised again, which was most of the work of a page. Same text as eventSummary's.
 */
export function eventSummaryJson(row: EventRow, expand: boolean): string {
  if (truncated(row, expand)) return JSON.stringify(eventSummary(row, expand));
  return `{"id":${JSON.stringify(row.id)},"indexed_at_ms":${Number(row.ms)},"event":${row.event},"metadata":${row.metadata}}`;
}

export function summaryPageJson(page: EventSummaryPage): string {
  return `{"page_info":${JSON.stringify(page.page_info)},"data":[${page.rows.map((row) => eventSummaryJson(row, page.expand)).join(",")}]}`;
}

export function summaryPageObject(page: EventSummaryPage): Page<EventSummary> {
  return { page_info: page.page_info, data: page.rows.map((row) => eventSummary(row, page.expand)) };
}
