// The workflow verbs of POST, PUT and DELETE /v1/workflows with the trigger: each checks the
// trigger first, lets the workflow verb do its part, then makes (or removes) what the trigger
// stands for. A trigger that cannot be made after the workflow was stored undoes the create.
import type { Actor } from "../../context.js";
import { createWorkflow, type CreateWorkflowInput } from "../create-workflow.js";
import { deleteWorkflow, findOwnedWorkflow, getWorkflow, updateWorkflow, type UpdateWorkflowInput } from "../manage-workflow.js";
import type { WorkflowView } from "../workflow-view.js";
import { assertTriggerPossible, makeTrigger, removeTrigger, type TriggerDeps } from "./make-trigger.js";
import { checkTrigger, sameTrigger, storedTrigger, type StoredTrigger, type TriggerBody, type TriggerInput } from "./trigger-spec.js";
import { triggerView } from "./trigger-view.js";

type Deps = TriggerDeps & { actor: Actor };

async function storeTrigger({ ctx, actor }: Deps, workflowId: string, stored: StoredTrigger): Promise<void> {
  await ctx.db
    .updateTable("workflows")
    .set({ trigger: stored.type === "http" ? null : JSON.stringify(stored) })
    .where("id", "=", workflowId)
    .where("user_id", "=", actor.userId)
    .execute();
}

/** Makes the trigger and stores it on the workflow; what was made is removed again when storing fails. */
async function makeAndStore(deps: Deps, workflow: { id: string; name: string }, trigger: TriggerInput): Promise<StoredTrigger> {
  const stored = await makeTrigger(deps, deps.actor, workflow, trigger);
  try {
    await storeTrigger(deps, workflow.id, stored);
  } catch (error) {
    await removeTrigger(deps, deps.actor, workflow.id, stored).catch(() => undefined);
    throw error;
  }
  return stored;
}

export async function createWorkflowWithTrigger(
  deps: Deps & { input: CreateWorkflowInput & { trigger?: TriggerBody } },
): Promise<WorkflowView> {
  const { ctx, runner, actor, input } = deps;
  const trigger = input.trigger === undefined ? undefined : checkTrigger(input.trigger);
  if (trigger) await assertTriggerPossible(deps, actor, trigger);
  const view = await createWorkflow({ ctx, runner, actor, input });
  if (!trigger || trigger.type === "http") return view;
  let stored: StoredTrigger;
  try {
    stored = await makeAndStore(deps, view, trigger);
  } catch (error) {
    await deleteWorkflow({ ctx, actor, id: view.id }).catch(() => undefined);
    throw error;
  }
  return { ...view, trigger: triggerView(ctx.config, JSON.stringify(stored), view.endpoint_url) };
}

/** A new trigger is made before the old one is removed: a failure leaves the workflow as it was triggered. */
export async function updateWorkflowWithTrigger(
  deps: Deps & { id: string; input: UpdateWorkflowInput & { trigger?: TriggerBody } },
): Promise<WorkflowView> {
  const { ctx, runner, actor, id, input } = deps;
  if (input.trigger === undefined) return updateWorkflow({ ctx, runner, actor, id, input });
  const trigger = checkTrigger(input.trigger);
  const current = storedTrigger((await findOwnedWorkflow(ctx, actor, id)).trigger);
  if (sameTrigger(current, trigger)) return updateWorkflow({ ctx, runner, actor, id, input });
  await assertTriggerPossible(deps, actor, trigger);
  const view = await updateWorkflow({ ctx, runner, actor, id, input });
  await makeAndStore(deps, view, trigger);
  await removeTrigger(deps, actor, id, current);
  return getWorkflow({ ctx, actor, id });
}

/** Deleting a workflow also deletes the source its trigger made (a source trigger's source stays). */
export async function deleteWorkflowWithTrigger(deps: Deps & { id: string }): Promise<void> {
  const { ctx, actor, id } = deps;
  const current = storedTrigger((await findOwnedWorkflow(ctx, actor, id)).trigger);
  await deleteWorkflow({ ctx, actor, id });
  await removeTrigger(deps, actor, id, current);
}
