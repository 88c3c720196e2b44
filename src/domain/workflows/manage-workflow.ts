// Reading, changing and deleting one workflow of the caller's account.
import { assertNameFree } from "../unused-name.js";
import type { Actor, Ctx } from "../context.js";
import { invalid, notFound } from "../../lib/errors.js";
import type { WorkflowsTable } from "../../store/schema.js";
import { newDeploymentId, validateWorkflowName } from "./create-workflow.js";
import { normalizeSteps, usesCustomResponse, type StepInput } from "./steps.js";
import { checkedSteps } from "./step-input.js";
import type { WorkflowRunner } from "./workflow-runner.js";
import { parseSteps, workflowView, type WorkflowView } from "./workflow-view.js";
import { deleteEmitterEvents } from "../events/delete-events.js";
import { deleteInlineAccounts } from "../accounts/app-props.js";

export async function findOwnedWorkflow(ctx: Ctx, actor: Actor, id: string): Promise<WorkflowsTable> {
  const row = await ctx.db.selectFrom("workflows").selectAll().where("id", "=", id).where("user_id", "=", actor.userId).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function getWorkflow({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<WorkflowView> {
  return workflowView(ctx.config, await findOwnedWorkflow(ctx, actor, id));
}

export interface UpdateWorkflowInput {
  name?: string;
  steps?: StepInput[];
  active?: boolean;
}

/** Changes what is given; new steps make a new deployment (deployment_id in error contexts). */
export async function updateWorkflow({
  ctx,
  runner,
  actor,
  id,
  input,
}: {
  ctx: Ctx;
  runner: WorkflowRunner;
  actor: Actor;
  id: string;
  input: UpdateWorkflowInput;
}): Promise<WorkflowView> {
  const current = await findOwnedWorkflow(ctx, actor, id);
  const next: WorkflowsTable = { ...current, updated_at: ctx.clock.now() };
  if (input.name !== undefined) next.name = validateWorkflowName(input.name);
  if (next.name !== current.name) await assertNameFree(ctx.db, "workflows", actor.userId, next.name, id);
  if (input.active !== undefined) next.active = input.active ? 1 : 0;
  if (input.steps !== undefined) {
    const steps = await checkedSteps({ ctx, runner, actor, steps: normalizeSteps(input.steps, parseSteps(current)) });
    next.steps = JSON.stringify(steps);
    next.custom_response = usesCustomResponse(steps) ? 1 : 0;
    next.deployment_id = newDeploymentId();
  }
  await ctx.db
    .updateTable("workflows")
    .set({
      name: next.name,
      active: next.active,
      steps: next.steps,
      custom_response: next.custom_response,
      deployment_id: next.deployment_id,
      updated_at: next.updated_at,
    })
    .where("id", "=", id)
    .where("user_id", "=", actor.userId)
    .execute();
  return workflowView(ctx.config, next);
}

/**
 * Deleting a workflow removes its events, the subscriptions to and from it and the accounts its
 * steps' inline `$auth` made. The global error workflow stays.
 */
export async function deleteWorkflow({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<void> {
  const row = await findOwnedWorkflow(ctx, actor, id);
  if (row.is_error_workflow === 1) throw invalid("the global error workflow can be changed (PUT) or deactivated, but not deleted");
  await ctx.db.transaction().execute(async (db) => {
    await db
      .deleteFrom("subscriptions")
      .where("user_id", "=", actor.userId)
      .where((eb) => eb.or([eb("listener_id", "=", id), eb("emitter_id", "=", id)]))
      .execute();
    await db.deleteFrom("auto_subscriptions").where("user_id", "=", actor.userId).where("listener_id", "=", id).execute();
    await deleteEmitterEvents(ctx.summaryPages, db, id);
    await db.deleteFrom("workflows").where("id", "=", id).where("user_id", "=", actor.userId).execute();
    await deleteInlineAccounts(
      { db },
      actor.userId,
      parseSteps(row).map((step) => step.id),
    );
  });
}
