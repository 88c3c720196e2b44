import type { Actor, Ctx } from "../context.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import { ensureErrorWorkflow } from "./error-workflow.js";
import { workflowView, type WorkflowView } from "./workflow-view.js";

export async function listWorkflows({ ctx, actor, page }: { ctx: Ctx; actor: Actor; page: PageRequest }): Promise<Page<WorkflowView>> {
  // Accounts made before workflows existed get their global error workflow on first look.
  await ensureErrorWorkflow(ctx, actor.userId);
  const query = ctx.db.selectFrom("workflows").selectAll().where("user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "workflows", page);
  return { page_info: result.page_info, data: result.data.map((row) => workflowView(ctx.config, row)) };
}
