// Replay (beyond the spec): run a workflow again on the original_event of one of its $errors
// events. The run is queued like an accepted HTTP request, so the answer comes at once.
import type { Actor, Ctx } from "../context.js";
import type { JobQueue } from "../../queue/job-queue.js";
import { notFound } from "../../lib/errors.js";
import { findOwnedWorkflow } from "./manage-workflow.js";
import { WORKFLOW_RUN_JOB, type WorkflowRunJob } from "./run-workflow.js";

export interface ReplayView {
  workflow_id: string;
  error_event_id: string;
  original_event: unknown;
}

export async function replayWorkflowError({
  ctx,
  queue,
  actor,
  id,
  eventId,
}: {
  ctx: Ctx;
  queue: JobQueue;
  actor: Actor;
  id: string;
  eventId: string;
}): Promise<ReplayView> {
  const workflow = await findOwnedWorkflow(ctx, actor, id);
  const row = await ctx.db
    .selectFrom("events")
    .select("event")
    .where("emitter_id", "=", workflow.id)
    .where("stream", "=", "$errors")
    .where("id", "=", eventId)
    .executeTakeFirst();
  if (!row) throw notFound();
  const originalEvent = (JSON.parse(row.event) as { original_event?: unknown }).original_event ?? null;
  const job: WorkflowRunJob = { userId: actor.userId, workflowId: workflow.id, event: originalEvent, trigger: "replay", hops: 0 };
  await queue.enqueue(ctx.db, [{ type: WORKFLOW_RUN_JOB, userId: actor.userId, payload: job }]);
  return { workflow_id: workflow.id, error_event_id: eventId, original_event: originalEvent };
}
