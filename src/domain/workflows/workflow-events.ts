// The workflow's streams: emits ($send.emit, default stream), $errors and $logs, read with the
// shared event-summary listing, which also checks that the workflow belongs to the caller.
import type { Actor, Ctx } from "../context.js";
import type { PageRequest } from "../../store/paginate.js";
import { readSummaryPage, type SummaryPageResult } from "../events/list-event-summaries.js";
import { openEmitterTail, type LiveTail } from "../events/live-tail.js";
import { findOwnedWorkflow } from "./manage-workflow.js";

export async function listWorkflowEventSummaries({
  ctx,
  actor,
  id,
  stream,
  page,
  expand,
  asObjects,
}: {
  ctx: Ctx;
  actor: Actor;
  id: string;
  stream: string;
  page: PageRequest;
  expand: boolean;
  asObjects: boolean;
}): Promise<SummaryPageResult> {
  return readSummaryPage({ ctx, table: "workflows", emitterId: id, userId: actor.userId, stream, page, expand, asObjects });
}

/** Live tail of one stream of the workflow (SSE). */
export async function openWorkflowTail({
  ctx,
  actor,
  id,
  eventName,
  lastEventId,
}: {
  ctx: Ctx;
  actor: Actor;
  id: string;
  eventName?: string;
  lastEventId?: string;
}): Promise<LiveTail> {
  await findOwnedWorkflow(ctx, actor, id);
  return openEmitterTail(ctx, id, eventName, lastEventId);
}
