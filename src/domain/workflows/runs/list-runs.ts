// The runs of a workflow, newest first (paginated like every list), and one run with its steps.
import type { Actor, Ctx } from "../../context.js";
import { notFound } from "../../../lib/errors.js";
import { paginateByCreation, type Page, type PageRequest } from "../../../store/paginate.js";
import { findOwnedWorkflow } from "../manage-workflow.js";
import { loadStepRows } from "./run-state.js";
import { runStepViews, runView, type RunStepView, type RunView } from "./run-view.js";

export async function listRuns({
  ctx,
  actor,
  id,
  page,
}: {
  ctx: Ctx;
  actor: Actor;
  id: string;
  page: PageRequest;
}): Promise<Page<RunView>> {
  const workflow = await findOwnedWorkflow(ctx, actor, id);
  const query = ctx.db.selectFrom("workflow_runs").selectAll().where("workflow_id", "=", workflow.id).where("user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "workflow_runs", page);
  return { page_info: result.page_info, data: result.data.map(runView) };
}

export async function getRun({
  ctx,
  actor,
  id,
  runId,
}: {
  ctx: Ctx;
  actor: Actor;
  id: string;
  runId: string;
}): Promise<RunView & { steps: RunStepView[] }> {
  const workflow = await findOwnedWorkflow(ctx, actor, id);
  const run = await ctx.db
    .selectFrom("workflow_runs")
    .selectAll()
    .where("id", "=", runId)
    .where("workflow_id", "=", workflow.id)
    .where("user_id", "=", actor.userId)
    .executeTakeFirst();
  if (!run) throw notFound();
  return { ...runView(run), steps: runStepViews(run, await loadStepRows(ctx.db, run.id)) };
}
