// Which database a Kysely instance (or a transaction of it) talks to, for the few statements
// written differently per dialect outside the store's own modules.
import { PostgresAdapter, type Kysely } from "kysely";
import type { Database } from "./schema.js";

export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
