// Deliveries this process has just committed, announced to its delivery worker so that it
// loads them while it claims their jobs instead of after (delivery-loader.ts). On PostgreSQL
// the load is a round trip of its own on the path from emit to webhook; announced at commit,
// it runs beside the claim. SQLite loads in-process at claim time, so nothing is announced.
// A hint only: a delivery whose announcement is missed, or whose job another process claims,
// is loaded when claimed, as before.
import type { Kysely } from "kysely";
import { isPostgres } from "../store/dialect-of.js";
import type { Database } from "../store/schema.js";
import { afterCommit } from "../store/transaction-scope.js";

type Listener = (deliveryIds: string[]) => void;
const listeners = new Set<Listener>();

export function onDeliveriesCommitted(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function announceOnCommit(db: Kysely<Database>, deliveryIds: string[]): void {
  if (listeners.size === 0 || deliveryIds.length === 0 || !isPostgres(db)) return;
  afterCommit(db, () => {
    for (const listener of listeners) listener(deliveryIds);
  });
}
