// How a paused run leaves its pause: woken (its driver takes it, the paused step becomes
// succeeded or, for a rerun, runs again), or cancelled (its cancel URL, a suspend that timed
// out, a workflow deleted meanwhile). Each is one conditional update on the run's wake_seq,
// so of a resume request, a timer and a cancel that race, exactly one wins.
import type { Kysely, Updateable } from "kysely";
import type { Database, WorkflowRunsTable } from "../../../store/schema.js";
import type { FlowRequest } from "../../../runner/protocol/workflow-execution.js";

export async function pausedFlow(db: Kysely<Database>, run: WorkflowRunsTable): Promise<FlowRequest | undefined> {
  const row = await db
    .selectFrom("workflow_run_steps")
    .select("flow")
    .where("run_id", "=", run.id)
    .where("position", "=", run.next_step)
    .executeTakeFirst();
  return row?.flow ? (JSON.parse(row.flow) as FlowRequest) : undefined;
}

/**
 * The one way out of a pause: sets `changes` and bumps wake_seq, only while the run is still
 * paused at `seq`; false when it moved on since (resumed, cancelled, woken).
 */
export async function leavePause(
  db: Kysely<Database>,
  run: WorkflowRunsTable,
  seq: number,
  changes: Updateable<WorkflowRunsTable> = {},
): Promise<boolean> {
  const updated = await db
    .updateTable("workflow_runs")
    .set({ ...changes, wake_seq: seq + 1 })
    .where("id", "=", run.id)
    .where("status", "=", "paused")
    .where("wake_seq", "=", seq)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Takes a paused run for `driver`; false when it moved on since `seq` (resumed, cancelled, woken). */
export async function takePausedRun(
  db: Kysely<Database>,
  run: WorkflowRunsTable,
  seq: number,
  driver: string,
  flow: FlowRequest | undefined,
): Promise<boolean> {
  const rerun = flow?.kind === "rerun";
  const next_step = rerun ? run.next_step : run.next_step + 1;
  if (!(await leavePause(db, run, seq, { status: "running", driver, driver_until: null, next_step }))) return false;
  await db
    .updateTable("workflow_run_steps")
    .set({ status: rerun ? "pending" : "succeeded", flow: null })
    .where("run_id", "=", run.id)
    .where("position", "=", run.next_step)
    .execute();
  await db.deleteFrom("workflow_run_links").where("run_id", "=", run.id).execute();
  return true;
}

/** Ends a paused run as cancelled; false when it moved on since `seq`. */
export async function cancelPausedRun(db: Kysely<Database>, run: WorkflowRunsTable, seq: number, now: number): Promise<boolean> {
  const ended = { status: "cancelled" as const, driver: null, ended_at: now, duration_ms: Math.max(0, now - run.created_at) };
  if (!(await leavePause(db, run, seq, ended))) return false;
  // The paused step's own code ran to its end; the steps after it never run.
  await db
    .updateTable("workflow_run_steps")
    .set({ status: "succeeded", flow: null })
    .where("run_id", "=", run.id)
    .where("position", "=", run.next_step)
    .execute();
  await db.deleteFrom("workflow_run_links").where("run_id", "=", run.id).execute();
  return true;
}
