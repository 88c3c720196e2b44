import { toUnixSeconds } from "../../lib/clock.js";
import type { WebhooksTable } from "../../store/schema.js";

export interface WebhookView {
  id: string;
  user_id?: string;
  name: string | null;
  description: string | null;
  url: string;
  active: boolean;
  created_at: number;
  updated_at: number;
  signing_secret?: string;
}

/** The spec's webhook; `user_id` only where the spec shows it (create and single reads). */
export function webhookView(row: WebhooksTable, options: { withUserId: boolean; withSecret?: boolean }): WebhookView {
  return {
    id: row.id,
    ...(options.withUserId ? { user_id: row.user_id } : {}),
    name: row.name,
    description: row.description,
    url: row.url,
    active: row.active === 1,
    created_at: toUnixSeconds(row.created_at),
    updated_at: toUnixSeconds(row.updated_at),
    ...(options.withSecret ? { signing_secret: row.signing_secret } : {}),
  };
}
