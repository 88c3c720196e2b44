// Connected accounts a workflow's steps made from an inline `$auth` (remembered by step id and
// prop, step-props.ts) go with the workflow, unless a source or another workflow names them.
import type { Ctx } from "../context.js";
import type { WorkflowStepCode } from "../../runner/protocol/workflow-execution.js";

export async function deleteStepAccounts(
  ctx: Pick<Ctx, "db">,
  userId: string,
  workflowId: string,
  steps: WorkflowStepCode[],
): Promise<void> {
  const stepIds = steps.map((step) => step.id);
  if (stepIds.length === 0) return;
  const made = await ctx.db
    .selectFrom("connected_accounts")
    .select("id")
    .where("user_id", "=", userId)
    .where("source_id", "in", stepIds)
    .execute();
  for (const { id } of made) {
    const pattern = `%"${id}"%`;
    const bySource = await ctx.db
      .selectFrom("sources")
      .select("id")
      .where("user_id", "=", userId)
      .where("configured_props", "like", pattern)
      .executeTakeFirst();
    const byWorkflow = await ctx.db
      .selectFrom("workflows")
      .select("id")
      .where("user_id", "=", userId)
      .where("id", "!=", workflowId)
      .where("steps", "like", pattern)
      .executeTakeFirst();
    if (!bySource && !byWorkflow) await ctx.db.deleteFrom("connected_accounts").where("id", "=", id).execute();
  }
}
