// The API view of a connected account: never the credentials, only their field names.
import { toUnixSeconds } from "../../lib/clock.js";
import type { ConnectedAccountsTable } from "../../store/schema.js";

export interface AccountView {
  id: string;
  app: string;
  name: string | null;
  fields: string[];
  created_at: number;
  updated_at: number;
}

export function accountView(row: ConnectedAccountsTable): AccountView {
  return {
    id: row.id,
    app: row.app,
    name: row.name,
    fields: JSON.parse(row.fields) as string[],
    created_at: toUnixSeconds(Number(row.created_at)),
    updated_at: toUnixSeconds(Number(row.updated_at)),
  };
}
