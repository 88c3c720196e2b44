// Counts one execution (an invocation and its compute time) for the account's UTC day.
import { sql, type Kysely } from "kysely";
import { preparedQuery } from "../../store/prepared-query.js";
import type { Database } from "../../store/schema.js";
import { utcDay } from "../users/billing-period.js";

// On every execution's path: prepared once (store/prepared-query.ts).
const addUsage = preparedQuery((db, userId: string, day: string, computeMs: number) =>
  db
    .insertInto("usage_daily")
    .values({ user_id: userId, day, invocations: 1, compute_ms: computeMs })
    .onConflict((oc) =>
      oc.columns(["user_id", "day"]).doUpdateSet({
        invocations: sql`usage_daily.invocations + 1`,
        compute_ms: sql`usage_daily.compute_ms + ${computeMs}`,
      }),
    ),
);

export async function recordUsage(db: Kysely<Database>, userId: string, nowMs: number, computeMs: number): Promise<void> {
  await addUsage(db, userId, utcDay(nowMs), Math.max(0, Math.round(computeMs)));
}
