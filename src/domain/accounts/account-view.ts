// The API view of a connected account: never the credentials, only their field names, and the
// inbound URL where the app's provider posts the events its apphook sources receive.
import { toUnixSeconds } from "../../lib/clock.js";
import type { ConnectedAccountsTable } from "../../store/schema.js";

export interface AccountView {
  id: string;
  app: string;
  name: string | null;
  fields: string[];
  webhook_url: string;
  /** Why the last OAuth refresh of its token failed (no secrets in it); null when it did not. */
  refresh_failure: string | null;
  created_at: number;
  updated_at: number;
}

/** The account's inbound URL: SLUICE_PUBLIC_URL/a/<key>. */
const inboundUrl = (publicUrl: string, inboundKey: string): string => `${publicUrl}/a/${inboundKey}`;

export function accountView(publicUrl: string, row: ConnectedAccountsTable): AccountView {
  return {
    id: row.id,
    app: row.app,
    name: row.name,
    fields: JSON.parse(row.fields) as string[],
    webhook_url: inboundUrl(publicUrl, row.inbound_key),
    refresh_failure: row.refresh_failure ?? null,
    created_at: toUnixSeconds(Number(row.created_at)),
    updated_at: toUnixSeconds(Number(row.updated_at)),
  };
}
