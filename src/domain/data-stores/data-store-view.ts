// A data store and a record as the API shows them (times in Unix seconds, as elsewhere).
import { toUnixSeconds } from "../../lib/clock.js";
import type { DataStoresTable } from "../../store/schema.js";

export interface DataStoreView {
  id: string;
  name: string;
  created_at: number;
}

export interface RecordView {
  key: string;
  value: unknown;
  updated_at: number;
  /** When the record expires (Unix seconds), or null when it does not. */
  expires_at: number | null;
}

export const dataStoreView = (row: Pick<DataStoresTable, "id" | "name" | "created_at">): DataStoreView => ({
  id: row.id,
  name: row.name,
  created_at: toUnixSeconds(row.created_at),
});

export const recordView = (row: { key: string; value: string; updated_at: number; expires_at: number | null }): RecordView => ({
  key: row.key,
  value: JSON.parse(row.value),
  updated_at: toUnixSeconds(Number(row.updated_at)),
  expires_at: row.expires_at === null ? null : toUnixSeconds(Number(row.expires_at)),
});
