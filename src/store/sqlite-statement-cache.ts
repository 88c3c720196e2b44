// Kysely's SQLite driver prepares every query anew; compiling SQL was ~15 % of the CPU of an
// API read. The same SQL text maps to the same prepared statement, kept in a bounded cache.
// Safe because Kysely runs one query at a time on the single connection and never iterates
// a statement while running another (no `.stream()` in Sluice).
import type SQLite from "better-sqlite3";

const MAX_STATEMENTS = 1000;

export function cachePreparedStatements(database: SQLite.Database): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SQLite.Statement>();
  database.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value as string);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof database.prepare;
}
