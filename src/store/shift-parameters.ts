// Renumbers the parameters of a PostgreSQL statement, so several statements combine into one
// (deferred-writes.ts, postgres-insert-events.ts).
import { BoundedCache } from "../lib/bounded-cache.js";

/**
 * `sql` with its parameters `$n` renumbered `$(n + offset)`, to sit after `offset` others.
 * An emit combines the same texts at the same offsets again and again, and the texts of
 * many-row INSERTs hold thousands of parameters: renumbering them with a regular expression
 * at every emit was ~4 % of the event loop's time on PostgreSQL, so results are remembered
 * (bounded; the writers' texts are mostly the same string objects, cheap to look up).
 */
export function shiftParameters(sql: string, offset: number): string {
  if (offset === 0) return sql;
  return shifted.get(sql, newOffsets).get(offset, (by) => sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`));
}

// By text, then by offset (keying by text and offset together would build a new key string,
// as long as the text, at every lookup).
const shifted = new BoundedCache<string, BoundedCache<number, string>>(500);
const newOffsets = () => new BoundedCache<number, string>(50);
