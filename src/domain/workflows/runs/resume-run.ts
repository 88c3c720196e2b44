// Resuming a paused run, by its resume URL or by its owner through the API: the data is stored
// on the paused step (`steps.<name>.$resume_data`; for a rerun, the request is
// `$.context.run.callback_request`), the run's links are used up, and the wake-up that takes the
// run on is queued. Only the pause `seq` names (workflow_runs.wake_seq) is resumed: of a resume,
// a cancel and a timeout that race, one wins.
import type { Ctx } from "../../context.js";
import type { JobQueue } from "../../../queue/job-queue.js";
import type { WorkflowRunsTable } from "../../../store/schema.js";
import { leavePause, pausedFlow } from "./pause-run.js";
import { WORKFLOW_WAKE_JOB, type WakeJob } from "./run-jobs.js";

export interface ResumeData {
  /** `steps.<name>.$resume_data` */
  data: unknown;
  /** `$.context.run.callback_request` when the pause was a rerun. */
  callbackRequest: { method: string; query: unknown; headers: Record<string, string>; body: unknown };
}

/** Whether this call resumed the run (false: it had moved on). */
export async function resumePausedRun(
  deps: { ctx: Ctx; queue: JobQueue },
  run: WorkflowRunsTable,
  seq: number,
  resume: ResumeData,
): Promise<boolean> {
  const flow = await pausedFlow(deps.ctx.db, run);
  return deps.ctx.db.transaction().execute(async (db) => {
    if (!(await leavePause(db, run, seq))) return false;
    await db
      .updateTable("workflow_run_steps")
      .set(
        flow?.kind === "rerun"
          ? { callback_request: JSON.stringify(resume.callbackRequest) }
          : { resume_data: JSON.stringify(resume.data) },
      )
      .where("run_id", "=", run.id)
      .where("position", "=", run.next_step)
      .execute();
    await db.deleteFrom("workflow_run_links").where("run_id", "=", run.id).execute();
    const wake: WakeJob = { userId: run.user_id, runId: run.id, seq: seq + 1, reason: "resume" };
    await deps.queue.enqueue(db, [{ type: WORKFLOW_WAKE_JOB, userId: run.user_id, payload: wake }]);
    return true;
  });
}
