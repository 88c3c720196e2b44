// How many jobs the queue holds in each state, in one statement: what /metrics reports on
// every scrape (never counted per job). A job is running while its lease lasts, due once its
// time has come and nobody holds it, and scheduled before that.
import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";

export type JobState = "running" | "due" | "scheduled";

export async function jobCountsByState(db: Kysely<Database>, nowMs: number): Promise<Record<JobState, number>> {
  const leased = sql<boolean>`locked_until is not null and locked_until > ${nowMs}`;
  const row = await db
    .selectFrom("jobs")
    .select([
      sql<number>`coalesce(sum(case when ${leased} then 1 else 0 end), 0)`.as("running"),
      sql<number>`coalesce(sum(case when not (${leased}) and run_at <= ${nowMs} then 1 else 0 end), 0)`.as("due"),
      sql<number>`coalesce(sum(case when not (${leased}) and run_at > ${nowMs} then 1 else 0 end), 0)`.as("scheduled"),
    ])
    .executeTakeFirst();
  return { running: Number(row?.running ?? 0), due: Number(row?.due ?? 0), scheduled: Number(row?.scheduled ?? 0) };
}
