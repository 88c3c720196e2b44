import type { Actor, Ctx } from "../context.js";
import { invalid } from "../../lib/errors.js";
import { newId, randomString } from "../../lib/ids.js";
import type { WorkflowsTable } from "../../store/schema.js";
import { unusedName } from "../unused-name.js";
import { applyAutoSubscriptions } from "../subscriptions/auto-subscriptions.js";
import { normalizeSteps, usesCustomResponse, type StepInput } from "./steps.js";
import { checkedSteps } from "./step-input.js";
import type { WorkflowRunner } from "./workflow-runner.js";
import { workflowView, type WorkflowView } from "./workflow-view.js";

export interface CreateWorkflowInput {
  name?: string;
  steps: StepInput[];
  active?: boolean;
}

export const newDeploymentId = () => `d_${randomString(16)}`;

export function validateWorkflowName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.length > 256) throw invalid("name must be 1-256 characters");
  return trimmed;
}

export async function createWorkflow({
  ctx,
  runner,
  actor,
  input,
}: {
  ctx: Ctx;
  runner: WorkflowRunner;
  actor: Actor;
  input: CreateWorkflowInput;
}): Promise<WorkflowView> {
  const name = input.name === undefined ? "Untitled workflow" : validateWorkflowName(input.name);
  const steps = await checkedSteps({ ctx, runner, actor, steps: normalizeSteps(input.steps) });
  const row = await ctx.db.transaction().execute(async (db) =>
    insertWorkflow({ ...ctx, db }, actor.userId, {
      name: await unusedName(db, "workflows", actor.userId, name),
      steps,
      active: input.active ?? true,
      isErrorWorkflow: false,
    }),
  );
  return workflowView(ctx.config, row);
}

/** Stores a workflow whose steps were already checked, and applies auto-subscriptions (caller's transaction). */
export async function insertWorkflow(
  ctx: Ctx,
  userId: string,
  input: { name: string; steps: ReturnType<typeof normalizeSteps>; active: boolean; isErrorWorkflow: boolean },
): Promise<WorkflowsTable> {
  const now = ctx.clock.now();
  const row: WorkflowsTable = {
    id: newId("p"),
    user_id: userId,
    name: input.name,
    steps: JSON.stringify(input.steps),
    active: input.active ? 1 : 0,
    endpoint_key: randomString(24),
    custom_response: usesCustomResponse(input.steps) ? 1 : 0,
    deployment_id: newDeploymentId(),
    is_error_workflow: input.isErrorWorkflow ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto("workflows").values(row).execute();
  await applyAutoSubscriptions(ctx, userId, row.id);
  return row;
}
