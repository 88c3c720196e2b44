// A new connected account's row, its credentials sealed with the row's id, with the inbound
// key of its apphook URL (/a/<key>).
import type { Ctx } from "../context.js";
import { newId, newUrlKey } from "../../lib/ids.js";
import type { ConnectedAccountsTable } from "../../store/schema.js";
import { sealCredentials } from "./credentials.js";

export function newAccountRow(
  ctx: Ctx,
  input: {
    userId: string;
    app: string;
    name: string | null;
    credentials: Record<string, unknown>;
    origin: { sourceId: string; prop: string } | null;
  },
): ConnectedAccountsTable {
  const id = newId("apn");
  const now = ctx.clock.now();
  return {
    id,
    user_id: input.userId,
    app: input.app,
    name: input.name,
    ...sealCredentials(ctx, id, input.credentials),
    source_id: input.origin?.sourceId ?? null,
    prop_name: input.origin?.prop ?? null,
    inbound_key: newUrlKey(), // whoever knows it can make the account's apphook sources run
    created_at: now,
    updated_at: now,
  };
}
