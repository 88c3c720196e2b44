// Counts executions (invocations and their compute time) for the account's UTC day. In a
// grouped transaction the executions of one account are added up and written once, before
// the commit.
import { sql, type Kysely } from "kysely";
import { preparedQuery } from "../../store/prepared-query.js";
import type { Database } from "../../store/schema.js";
import { onceBeforeCommit, scopeOf, writeBeforeCommit } from "../../store/transaction-scope.js";
import { utcDay } from "../users/billing-period.js";

// On every execution's path: prepared once (store/prepared-query.ts).
const addUsage = preparedQuery((db, userId: string, day: string, invocations: number, computeMs: number) =>
  db
    .insertInto("usage_daily")
    .values({ user_id: userId, day, invocations, compute_ms: computeMs })
    .onConflict((oc) =>
      oc.columns(["user_id", "day"]).doUpdateSet({
        invocations: sql`usage_daily.invocations + ${invocations}`,
        compute_ms: sql`usage_daily.compute_ms + ${computeMs}`,
      }),
    ),
);

interface Tally {
  invocations: number;
  computeMs: number;
}

/** Counts `invocations` executions (one by default; none for CPU used between executions). */
export async function recordUsage(db: Kysely<Database>, userId: string, nowMs: number, computeMs: number, invocations = 1): Promise<void> {
  const day = utcDay(nowMs);
  const ms = Math.max(0, Math.round(computeMs));
  const scope = scopeOf(db);
  if (!scope) {
    await addUsage(db, userId, day, invocations, ms);
    return;
  }
  const key = `usage:${userId}:${day}`;
  let tally = scope.memo.get(key) as Tally | undefined;
  if (!tally) scope.memo.set(key, (tally = { invocations: 0, computeMs: 0 }));
  tally.invocations += invocations;
  tally.computeMs += ms;
  const counted = tally;
  // Nothing in the transaction reads the counter: on PostgreSQL it goes with the other
  // deferred writes (store/deferred-writes.ts).
  await onceBeforeCommit(db, key, () => writeBeforeCommit(db, addUsage.compile(db, userId, day, counted.invocations, counted.computeMs)));
}
