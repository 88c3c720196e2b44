// Removing finished jobs, many in one statement: each only while the lease it was claimed
// under is still held (a job whose lease expired and was claimed again is left to its new
// holder, which runs it again: at least once).
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { JobLease } from "./job-queue.js";

export async function completeJobs(db: Kysely<Database>, leases: readonly JobLease[]): Promise<void> {
  if (leases.length === 0) return;
  // One claim's jobs share a token, so the token list is short; a row matches only with
  // its own token because every token is unique to one claim.
  await db
    .deleteFrom("jobs")
    .where("id", "in", leases.map((lease) => lease.id))
    .where("lease_token", "in", [...new Set(leases.map((lease) => lease.token))])
    .execute();
}
