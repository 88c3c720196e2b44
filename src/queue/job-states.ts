// How many jobs the queue holds in each state, in one statement: what /metrics reports on
// every scrape (never counted per job). A job is running while its lease lasts, due once its
// time has come and nobody holds it, and scheduled before that; dead once it used up its
// attempts (it then waits in dead_jobs for an operator, dead-jobs.ts).
import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";

export type JobState = "running" | "due" | "scheduled" | "dead";

export async function jobCountsByState(db: Kysely<Database>, nowMs: number): Promise<Record<JobState, number>> {
  const leased = sql<boolean>`locked_until is not null and locked_until > ${nowMs}`;
  const row = await db
    .selectFrom("jobs")
    .select([
      sql<number>`coalesce(sum(case when ${leased} then 1 else 0 end), 0)`.as("running"),
      sql<number>`coalesce(sum(case when not (${leased}) and run_at <= ${nowMs} then 1 else 0 end), 0)`.as("due"),
      sql<number>`coalesce(sum(case when not (${leased}) and run_at > ${nowMs} then 1 else 0 end), 0)`.as("scheduled"),
      sql<number>`(select count(*) from dead_jobs)`.as("dead"),
    ])
    .executeTakeFirst();
  return {
    running: Number(row?.running ?? 0),
    due: Number(row?.due ?? 0),
    scheduled: Number(row?.scheduled ?? 0),
    dead: Number(row?.dead ?? 0),
  };
}
