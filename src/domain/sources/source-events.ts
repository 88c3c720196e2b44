// The events of one source of the account: summaries, queued deletion and live tail.
import type { Actor, Ctx } from "../context.js";
import { notFound } from "../../lib/errors.js";
import { preparedQuery } from "../../store/prepared-query.js";
import type { JobQueue } from "../../queue/contract.js";
import type { PageRequest } from "../../store/paginate.js";
import { validateEventRange, type EventRange } from "../events/delete-events.js";
import { onEvents } from "../events/event-bus.js";
import { streamOf } from "../subscriptions/event-name.js";
import { eventsAfter, listEventSummaries, newestEventId } from "../events/list-event-summaries.js";
import { findOwnedSource } from "./save-source.js";
import { EVENTS_DELETE_JOB } from "./source-jobs.js";

const countOwnedSourceEvents = preparedQuery((db, sourceId: string, userId: string, stream: string) =>
  db
    .selectFrom("sources")
    .select((eb) => eb.selectFrom("events").select(eb.fn.countAll().as("c")).whereRef("events.emitter_id", "=", "sources.id").where("events.stream", "=", stream).as("n"))
    .where("sources.id", "=", sourceId)
    .where("sources.user_id", "=", userId),
);

export async function listSourceEventSummaries({ ctx, actor, id, eventName, page, expand }: { ctx: Ctx; actor: Actor; id: string; eventName?: string; page: PageRequest; expand: boolean }) {
  const stream = streamOf(eventName);
  // The ownership check and the count in one query: this is a hot read path.
  const owned = (await countOwnedSourceEvents(ctx.db, id, actor.userId, stream)).rows[0];
  if (!owned) throw notFound();
  return listEventSummaries({ ctx, emitterId: id, stream, page, expand, total: Number(owned.n ?? 0) });
}

/** Queues the deletion (202): a worker deletes, also after a restart. */
export async function requestSourceEventDeletion({ ctx, queue, actor, id, range }: { ctx: Ctx; queue: JobQueue; actor: Actor; id: string; range: EventRange }): Promise<void> {
  validateEventRange(range);
  await findOwnedSource({ ctx }, actor, id);
  await queue.enqueue(ctx.db, [{ type: EVENTS_DELETE_JOB, userId: actor.userId, payload: { emitterId: id, startId: range.startId, endId: range.endId } }]);
}

export interface LiveTail {
  /** Resume after this id; the newest existing event when the client gave none. */
  startAfter: string | undefined;
  fetchAfter(afterId: string | undefined): Promise<Array<{ id: string; data: unknown }>>;
  subscribe(wake: () => void): () => void;
}

export async function openSourceTail({ ctx, actor, id, eventName, lastEventId }: { ctx: Ctx; actor: Actor; id: string; eventName?: string; lastEventId?: string }): Promise<LiveTail> {
  await findOwnedSource({ ctx }, actor, id);
  const stream = streamOf(eventName);
  return {
    startAfter: lastEventId || (await newestEventId(ctx, id, stream)),
    fetchAfter: async (afterId) => (await eventsAfter({ ctx, emitterId: id, stream, afterId, limit: 100 })).map((s) => ({ id: s.id, data: s })),
    subscribe: (wake) => onEvents(id, wake),
  };
}
