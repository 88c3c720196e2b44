// The API view of a stored event. Without expand=event, an event whose JSON is over 1 KB is
// replaced by {"$truncated": true, "preview": "<its first 1024 characters of JSON>"} and the
// summary's metadata gets `truncated: true`; expand=event always returns the full event.
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

export function eventSummary(row: EventRow, expand: boolean): EventSummary {
  const metadata = JSON.parse(row.metadata) as Record<string, unknown>;
  if (!expand && Buffer.byteLength(row.event) > TRUNCATE_AT_BYTES) {
    return { id: row.id, indexed_at_ms: Number(row.ms), event: { $truncated: true, preview: row.event.slice(0, TRUNCATE_AT_BYTES) }, metadata: { ...metadata, truncated: true } };
  }
  return { id: row.id, indexed_at_ms: Number(row.ms), event: JSON.parse(row.event), metadata };
}

