// The events of one source of the account: summaries, queued deletion and live tail.
import type { Actor, Ctx } from "../context.js";
import type { JobQueue } from "../../queue/job-queue.js";
import type { PageRequest } from "../../store/paginate.js";
import { validateEventRange, type EventRange } from "../events/delete-events.js";
import { openEmitterTail, type LiveTail } from "../events/live-tail.js";
import { streamOf } from "../subscriptions/event-name.js";
import { readSummaryPage, type SummaryPageResult } from "../events/list-event-summaries.js";
import { findOwnedSource } from "./save-source.js";
import { EVENTS_DELETE_JOB } from "./source-jobs.js";

export async function listSourceEventSummaries({
  ctx,
  actor,
  id,
  eventName,
  page,
  expand,
  asObjects,
}: {
  ctx: Ctx;
  actor: Actor;
  id: string;
  eventName?: string;
  page: PageRequest;
  expand: boolean;
  asObjects: boolean;
}): Promise<SummaryPageResult> {
  return readSummaryPage({
    ctx,
    table: "sources",
    emitterId: id,
    userId: actor.userId,
    stream: streamOf(eventName),
    page,
    expand,
    asObjects,
  });
}

/** Queues the deletion (202): a worker deletes, also after a restart. */
export async function requestSourceEventDeletion({
  ctx,
  queue,
  actor,
  id,
  range,
}: {
  ctx: Ctx;
  queue: JobQueue;
  actor: Actor;
  id: string;
  range: EventRange;
}): Promise<void> {
  validateEventRange(range);
  await findOwnedSource({ ctx }, actor, id);
  await queue.enqueue(ctx.db, [
    { type: EVENTS_DELETE_JOB, userId: actor.userId, payload: { emitterId: id, startId: range.startId, endId: range.endId } },
  ]);
}

/** Live tail of one stream of the source (SSE). */
export async function openSourceTail({
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
  await findOwnedSource({ ctx }, actor, id);
  return openEmitterTail(ctx, id, eventName, lastEventId);
}
