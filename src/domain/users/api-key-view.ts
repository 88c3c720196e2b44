import { toUnixSeconds } from "../../lib/clock.js";
import type { ApiKeysTable } from "../../store/schema.js";
import { maskApiKey } from "./api-keys.js";

export interface ApiKeyView {
  id: string;
  name: string | null;
  /** Masked, except in the answer that created the key. */
  api_key: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

const seconds = (ms: number | null) => (ms === null ? null : toUnixSeconds(Number(ms)));

export function apiKeyView(
  row: Pick<ApiKeysTable, "id" | "name" | "key_hint" | "created_at" | "expires_at" | "last_used_at">,
  fullKey?: string,
): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    api_key: fullKey ?? maskApiKey(row.key_hint),
    created_at: toUnixSeconds(Number(row.created_at)),
    expires_at: seconds(row.expires_at),
    last_used_at: seconds(row.last_used_at),
  };
}
