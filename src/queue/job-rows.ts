// The statements on job rows a worker holds: each acts only while the row still carries the
// lease token it was claimed under, so a job whose lease expired and was claimed again is left
// to its new holder (which runs it again: at least once, never lost).
import { sql, type Kysely } from "kysely";
import { preparedQuery } from "../store/prepared-query.js";
import type { Database, JobsTable } from "../store/schema.js";
import type { JobLease } from "./job-queue.js";

// Every job that completes in its handler's transaction runs this (each accepted request and
// each delivery): prepared once, since building and compiling it with Kysely on every call
// cost about as much of the event loop as SQLite took to run it.
const deleteLeasedJob = preparedQuery((db, id: string, token: string) =>
  db.deleteFrom("jobs").where("id", "=", id).where("lease_token", "=", token),
);

/** Removes one finished job; throws when this worker no longer holds its lease (rolling back the caller's transaction). */
export async function completeJob(db: Kysely<Database>, lease: JobLease): Promise<void> {
  const result = await deleteLeasedJob(db, lease.id, lease.token);
  if (Number(result.numAffectedRows ?? 0) !== 1) throw new Error(`job ${lease.id} is no longer leased by this worker`);
}

/** Removes finished jobs, many in one statement; those whose lease was lost are left. */
export async function completeJobs(db: Kysely<Database>, leases: readonly JobLease[]): Promise<void> {
  if (leases.length === 0) return;
  // One claim's jobs share a token, so the token list is short; a row matches only with
  // its own token because every token is unique to one claim.
  await db
    .deleteFrom("jobs")
    .where(
      "id",
      "in",
      leases.map((lease) => lease.id),
    )
    .where("lease_token", "in", [...new Set(leases.map((lease) => lease.token))])
    .execute();
}

/** Frees a job for another attempt at `runAt`, keeping the error of the one that failed (null: none). */
export async function rescheduleJob(db: Kysely<Database>, lease: JobLease, runAt: number, lastError: string | null): Promise<void> {
  await db
    .updateTable("jobs")
    .set({ run_at: runAt, lease_token: null, locked_until: null, last_error: lastError })
    .where("id", "=", lease.id)
    .where("lease_token", "=", lease.token)
    .execute();
}

/** Extends the leases of the claims `tokens` until `lockedUntil`, so long handlers are not taken over. */
export async function renewLeases(db: Kysely<Database>, tokens: readonly string[], lockedUntil: number): Promise<void> {
  if (tokens.length === 0) return;
  await db.updateTable("jobs").set({ locked_until: lockedUntil }).where("lease_token", "in", tokens).execute();
}

/** Makes jobs queued here but never started free again, for any worker to claim at once, as if never claimed. */
export async function returnUnstartedJobs(db: Kysely<Database>, rows: readonly JobsTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .updateTable("jobs")
    .set({ lease_token: null, locked_until: null, attempts: sql<number>`attempts - 1` })
    .where(
      "id",
      "in",
      rows.map((row) => row.id),
    )
    .where(
      "lease_token",
      "in",
      rows.map((row) => row.lease_token!),
    )
    .execute();
}

/**
 * Moves a job this worker holds to the dead jobs (dead-jobs.ts), with the reason it died.
 * Whether it did: a job whose lease was lost meanwhile belongs to its new holder.
 */
export async function buryJob(db: Kysely<Database>, lease: JobLease, lastError: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    // Typed casts: PostgreSQL would take a bare parameter in the select list for text.
    const inserted = await tx
      .insertInto("dead_jobs")
      .columns(["id", "type", "payload", "user_id", "concurrency_key", "attempts", "last_error", "created_at", "died_at"])
      .expression(
        tx
          .selectFrom("jobs")
          .select([
            "id",
            "type",
            "payload",
            "user_id",
            "concurrency_key",
            "attempts",
            sql<string>`cast(${lastError} as text)`.as("last_error"),
            "created_at",
            sql<number>`cast(${now} as bigint)`.as("died_at"),
          ])
          .where("id", "=", lease.id)
          .where("lease_token", "=", lease.token),
      )
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    await tx.deleteFrom("jobs").where("id", "=", lease.id).where("lease_token", "=", lease.token).execute();
    return true;
  });
}
