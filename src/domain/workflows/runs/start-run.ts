// A run's row, written before its first step runs. A run started by a job or a delivery is
// keyed by it (origin): when that job or delivery is handed out again because its worker died,
// it finds the run and continues it at the first step without a stored result.
import type { Ctx } from "../../context.js";
import { newTimeOrderedId } from "../../../lib/ids.js";
import type { WorkflowRunsTable, WorkflowsTable } from "../../../store/schema.js";
import { runContext, type TriggerKind } from "../run-context.js";

export interface StartRun {
  workflow: WorkflowsTable;
  event: unknown;
  trigger: TriggerKind;
  hops: number;
  /** `j:<job id>` or `d:<delivery id>`; absent for a run driven inside an HTTP request. */
  origin?: string;
}

export async function startOrFindRun(ctx: Ctx, input: StartRun): Promise<WorkflowRunsTable> {
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
  await ctx.db.insertInto("workflow_runs").values(row).execute();
  return row;
}
