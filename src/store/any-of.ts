// `column IN (…values)` for lists of text ids. On PostgreSQL it is `column = any($1::text[])`:
// one SQL text whatever the list's length, so one prepared statement (ADR 0016) instead of
// one text, planned again, per length. On SQLite a list of placeholders, as Kysely writes it.
import { sql, type Expression, type Kysely, type SqlBool } from "kysely";
import { isPostgres } from "./dialect-of.js";
import type { Database } from "./schema.js";

export function anyOf(db: Kysely<Database>, column: string, values: readonly string[]): Expression<SqlBool> {
  if (isPostgres(db)) return sql<SqlBool>`${sql.ref(column)} = any(${[...values]}::text[])`;
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join([...values])})`;
}
