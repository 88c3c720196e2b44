// A workflow's emit that could not be delivered (retries used up) is reported on its $errors
// stream by the delivery worker. On a workflow that stream has one shape (the spec's), so the
// report is given it: error {code: DELIVERY_FAILED, cellId: "" (no step failed), ts, stack},
// original_event (the undelivered event), original_context, plus what the delivery was.
import type { Ctx } from "../context.js";
import { runContext, type WorkflowErrorEvent } from "./run-context.js";

export interface DeliveryFailureReport {
  error: { name: string; message: string; stack: string };
  original_event: unknown;
  delivery: unknown;
}

export async function asWorkflowDeliveryError(
  ctx: Ctx,
  workflowId: string,
  report: DeliveryFailureReport,
): Promise<WorkflowErrorEvent & { delivery: unknown }> {
  const workflow = await ctx.db.selectFrom("workflows").selectAll().where("id", "=", workflowId).executeTakeFirstOrThrow();
  const now = ctx.clock.now();
  return {
    original_event: report.original_event,
    original_context: runContext(workflow, "delivery", now),
    error: { code: "DELIVERY_FAILED", cellId: "", ts: new Date(now).toISOString(), stack: report.error.stack },
    delivery: report.delivery,
  };
}
