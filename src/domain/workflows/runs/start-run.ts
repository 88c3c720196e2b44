// A run's row, written before its first step runs. A run started by a job or a delivery is
// keyed by it (origin): when that job or delivery is handed out again because its worker died,
// it finds the run and continues it at the first step without a stored result. A run driven
// inside an HTTP request has no such job: a watch job is queued with it instead, which a worker
// uses to take the run over should the process driving it die (adopt-run.ts).
import type { Ctx } from "../../context.js";
import type { JobQueue } from "../../../queue/job-queue.js";
import { newTimeOrderedId } from "../../../lib/ids.js";
import type { WorkflowRunsTable, WorkflowsTable } from "../../../store/schema.js";
import { runContext, type TriggerKind } from "../run-context.js";
import { DRIVER_GRACE_MS, WORKFLOW_WAKE_JOB, type WakeJob } from "./run-jobs.js";

export interface StartRun {
  workflow: WorkflowsTable;
  event: unknown;
  trigger: TriggerKind;
  hops: number;
  /** `j:<job id>` or `d:<delivery id>`; absent for a run driven inside an HTTP request. */
  origin?: string;
}

export async function startOrFindRun(deps: { ctx: Ctx; queue: JobQueue }, input: StartRun): Promise<WorkflowRunsTable> {
  const { ctx } = deps;
  if (input.origin) {
    const found = await ctx.db.selectFrom("workflow_runs").selectAll().where("origin", "=", input.origin).executeTakeFirst();
    if (found) return found;
  }
  const now = ctx.clock.now();
  const id = newTimeOrderedId("run", now);
  const row: WorkflowRunsTable = {
    id,
    user_id: input.workflow.user_id,
    workflow_id: input.workflow.id,
    origin: input.origin ?? null,
    driver: input.origin ?? `inline:${id}`,
    driver_until: now + ctx.config.runTimeoutSeconds * 1000 + DRIVER_GRACE_MS,
    status: "running",
    summary: null,
    trigger_event: JSON.stringify(input.event === undefined ? null : input.event),
    trigger_kind: input.trigger,
    context: JSON.stringify(runContext(input.workflow, input.trigger, now)),
    hops: input.hops,
    steps: input.workflow.steps,
    next_step: 0,
    wake_seq: 0,
    created_at: now,
    ended_at: null,
    duration_ms: null,
  };
  if (input.origin) {
    await ctx.db.insertInto("workflow_runs").values(row).execute();
    return row;
  }
  await ctx.db.transaction().execute(async (db) => {
    await db.insertInto("workflow_runs").values(row).execute();
    const watch: WakeJob = { userId: row.user_id, runId: id, seq: 0, reason: "watch" };
    await deps.queue.enqueue(db, [{ type: WORKFLOW_WAKE_JOB, userId: row.user_id, payload: watch, runAt: row.driver_until! }]);
  });
  return row;
}
