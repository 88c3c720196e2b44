// PostgreSQL: writes that nobody in the transaction reads back (deliveries and their jobs, the
// usage counter, stream trims) and NOTIFYs are kept until just before the commit and sent
// together as one statement of data-modifying CTEs. Every statement is a round trip to the
// server (a few hundred µs each), and on the path from emit to webhook they were four; now
// they are one. The statements still run inside the transaction, so they commit or roll back
// with everything else, and a failing one fails the commit.
//
// In one statement every CTE sees the same snapshot (that of the statement's start, which
// includes everything written earlier in the transaction): fine for independent writes, not
// for a write that must see another deferred one, which is why only callers that know their
// write is independent use this. Without a grouped transaction's scope, or on SQLite (whose
// statements cost no round trip), writes run at once.
import { CompiledQuery, type Kysely } from "kysely";
import { storageOf } from "./storage-dialect.js";
import type { Database } from "./schema.js";
import { shiftParameters } from "./shift-parameters.js";

export { shiftParameters };

/** Parameters per combined statement, well under PostgreSQL's limit of 65,535. */
const MAX_PARAMETERS = 30_000;

export interface DeferredWrites {
  writes: CompiledQuery[];
  notifications: Array<{ channel: string; payload: string }>;
}

export const noDeferredWrites = (): DeferredWrites => ({ writes: [], notifications: [] });

/**
 * Whether `query` may wait in `deferred`: PostgreSQL only, and only SQL whose every value is a
 * parameter (renumbering `$n` must not touch a quoted literal).
 */
export function canDefer(db: Kysely<Database>, query: CompiledQuery): boolean {
  return storageOf(db).defersWrites && !query.sql.includes("'");
}

/** Sends the kept writes and notifications in as few statements as their parameters allow. */
export async function flushDeferredWrites(db: Kysely<Database>, deferred: DeferredWrites, maxParameters = MAX_PARAMETERS): Promise<void> {
  while (deferred.writes.length > 0 || deferred.notifications.length > 0) {
    const writes: CompiledQuery[] = [];
    const notifications: DeferredWrites["notifications"] = [];
    let count = 0;
    while (deferred.writes.length > 0 && (writes.length === 0 || count + deferred.writes[0]!.parameters.length <= maxParameters)) {
      const next = deferred.writes.shift()!;
      writes.push(next);
      count += next.parameters.length;
    }
    while (deferred.notifications.length > 0 && (count === 0 || count + 2 <= maxParameters)) {
      notifications.push(deferred.notifications.shift()!);
      count += 2;
    }
    await db.executeQuery(combined(writes, notifications));
  }
}

/**
 * `with w0 as (…), w1 as (…) select pg_notify($a, $b), …`: PostgreSQL runs every
 * data-modifying CTE to completion whether or not the main query reads it.
 */
export function combined(writes: CompiledQuery[], notifications: DeferredWrites["notifications"]): CompiledQuery {
  if (writes.length === 1 && notifications.length === 0) return writes[0]!;
  const parameters: unknown[] = [];
  const ctes = writes.map((write, i) => {
    const offset = parameters.length;
    parameters.push(...write.parameters);
    return `w${i} as (${shiftParameters(write.sql, offset)})`;
  });
  const selected = notifications.map(({ channel, payload }, i) => {
    parameters.push(channel, payload);
    return `pg_notify($${parameters.length - 1}, $${parameters.length}) as n${i}`;
  });
  const head = ctes.length > 0 ? `with ${ctes.join(", ")} ` : "";
  return CompiledQuery.raw(`${head}select ${selected.length > 0 ? selected.join(", ") : "1"}`, parameters);
}
