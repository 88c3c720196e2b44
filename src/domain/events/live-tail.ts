// The live tail of one emitter's stream (SSE, docs/architecture.md, "Events"), the same for sources and
// workflows: from Last-Event-ID when given, else from the newest event; new events come in
// batches read after the last one sent, and an in-process wake-up says when to look.
import type { Ctx } from "../context.js";
import { streamOf } from "../subscriptions/event-name.js";
import { eventsAfter, newestEventId } from "./list-event-summaries.js";

/** Events read per batch; a full batch means more may follow at once. */
export const TAIL_BATCH = 100;

export interface LiveTail {
  /** Resume after this id; the newest existing event when the client gave none. */
  startAfter: string | undefined;
  fetchAfter(afterId: string | undefined): Promise<Array<{ id: string; data: unknown }>>;
  subscribe(wake: () => void): () => void;
}

/** Opens the tail of an emitter the caller has already been checked to own. */
export async function openEmitterTail(
  ctx: Ctx,
  emitterId: string,
  eventName: string | undefined,
  lastEventId: string | undefined,
): Promise<LiveTail> {
  const stream = streamOf(eventName);
  return {
    startAfter: lastEventId || (await newestEventId(ctx, emitterId, stream)),
    fetchAfter: async (afterId) =>
      (await eventsAfter({ ctx, emitterId, stream, afterId, limit: TAIL_BATCH })).map((s) => ({ id: s.id, data: s })),
    subscribe: (wake) => ctx.liveEvents.listen(emitterId, wake),
  };
}
