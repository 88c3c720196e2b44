// Counts one execution (an invocation and its compute time) for the account's UTC day.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../store/schema.js";
import { utcDay } from "../users/billing-period.js";

export async function recordUsage(db: Kysely<Database>, userId: string, nowMs: number, computeMs: number): Promise<void> {
  const ms = Math.max(0, Math.round(computeMs));
  await db
    .insertInto("usage_daily")
    .values({ user_id: userId, day: utcDay(nowMs), invocations: 1, compute_ms: ms })
    .onConflict((oc) =>
      oc.columns(["user_id", "day"]).doUpdateSet({
        invocations: sql`usage_daily.invocations + 1`,
        compute_ms: sql`usage_daily.compute_ms + ${ms}`,
      }),
    )
    .execute();
}
