// Kysely's SQLite driver prepares every query anew; compiling SQL was ~15 % of the CPU of an
// API read. The same SQL text maps to the same prepared statement, kept in a bounded cache.
// Safe because Kysely runs one query at a time on the single connection and never iterates
// a statement while running another (no `.stream()` in Sluice).
import type SQLite from "better-sqlite3";
import { BoundedCache } from "../lib/bounded-cache.js";

const MAX_STATEMENTS = 1000;

export function cachePreparedStatements(database: SQLite.Database): void {
  const prepare = database.prepare.bind(database) as (source: string) => SQLite.Statement;
  const cache = new BoundedCache<string, SQLite.Statement>(MAX_STATEMENTS);
  database.prepare = ((source: string) => cache.get(source, prepare)) as typeof database.prepare;
}
