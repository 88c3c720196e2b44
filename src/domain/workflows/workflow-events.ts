// The workflow's streams: emits ($send.emit, default stream), $errors and $logs, read with the
// shared event-summary listing once the workflow is known to belong to the caller.
import type { Actor, Ctx } from "../context.js";
import type { Page, PageRequest } from "../../store/paginate.js";
import { onEvents } from "../events/event-bus.js";
import type { EventSummary } from "../events/event-summary.js";
import { streamOf } from "../subscriptions/event-name.js";
import { eventsAfter, listEventSummaries, newestEventId } from "../events/list-event-summaries.js";
import type { LiveTail } from "../sources/source-events.js";
import { findOwnedWorkflow } from "./manage-workflow.js";

export async function listWorkflowEventSummaries({ ctx, actor, id, stream, page, expand }: { ctx: Ctx; actor: Actor; id: string; stream: string; page: PageRequest; expand: boolean }): Promise<Page<EventSummary>> {
  await findOwnedWorkflow(ctx, actor, id);
  return listEventSummaries({ ctx, emitterId: id, stream, page, expand });
}

/** Live tail of one stream (SSE): from Last-Event-ID when given, else from now. */
export async function openWorkflowTail({ ctx, actor, id, eventName, lastEventId }: { ctx: Ctx; actor: Actor; id: string; eventName?: string; lastEventId?: string }): Promise<LiveTail> {
  await findOwnedWorkflow(ctx, actor, id);
  const stream = streamOf(eventName);
  return {
    startAfter: lastEventId || (await newestEventId(ctx, id, stream)),
    fetchAfter: async (afterId) => (await eventsAfter({ ctx, emitterId: id, stream, afterId, limit: 100 })).map((s) => ({ id: s.id, data: s })),
    subscribe: (wake) => onEvents(id, wake),
  };
}
