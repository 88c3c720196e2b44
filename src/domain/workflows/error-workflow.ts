// The account's global error workflow: an ordinary workflow, made with the account, that
// receives every error of the account's other workflows. Its default step asks the service
// to e-mail the owner a summary ($.send.email; logged when SMTP is not configured).
import type { Ctx } from "../context.js";
import type { WorkflowsTable } from "../../store/schema.js";
import { insertWorkflow } from "./create-workflow.js";
import { newStepId } from "./steps.js";

export const ERROR_WORKFLOW_NAME = "Global error workflow";

export const DEFAULT_ERROR_STEP_CODE = `// Runs for every error of this account's workflows. steps.trigger.event holds
// { original_event, original_context, error: { code, cellId, ts, stack } }.
export default {
  async run({ steps, $ }) {
    const { error = {}, original_context: context = {}, original_event: event } = steps.trigger.event ?? {};
    const subject = \`Sluice: workflow \${context.workflow_id} failed (\${error.code})\`;
    const text = [
      \`Workflow: \${context.workflow_id}\`,
      \`Step: \${error.cellId}\`,
      \`At: \${error.ts}\`,
      \`Error: \${error.code}\`,
      "",
      String(error.stack ?? ""),
      "",
      "Event:",
      JSON.stringify(event, null, 2).slice(0, 4000),
    ].join("\\n");
    $.send.email({ subject, text });
    return { subject };
  },
};
`;

function errorWorkflowInput() {
  return {
    name: ERROR_WORKFLOW_NAME,
    steps: [{ id: newStepId(), name: "email_summary", code: DEFAULT_ERROR_STEP_CODE }],
    active: true,
    isErrorWorkflow: true,
  };
}

export function findErrorWorkflow(ctx: Ctx, userId: string): Promise<WorkflowsTable | undefined> {
  return ctx.db.selectFrom("workflows").selectAll().where("user_id", "=", userId).where("is_error_workflow", "=", 1).executeTakeFirst();
}

/** The account's error workflow, made now for accounts created before workflows existed. */
export async function ensureErrorWorkflow(ctx: Ctx, userId: string): Promise<WorkflowsTable> {
  const existing = await findErrorWorkflow(ctx, userId);
  if (existing) return existing;
  try {
    return await ctx.db.transaction().execute((db) => insertWorkflow({ ...ctx, db }, userId, errorWorkflowInput()));
  } catch (error) {
    // Another request made it at the same moment (one per account, unique index).
    const made = await findErrorWorkflow(ctx, userId);
    if (made) return made;
    throw error;
  }
}

/** Makes a new account's error workflow, in the transaction that makes the account (a UserCreatedHook). */
export async function createErrorWorkflow(ctx: Ctx, userId: string): Promise<void> {
  await insertWorkflow(ctx, userId, errorWorkflowInput());
}
