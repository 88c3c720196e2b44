// In-process wake-ups for live tails: after events commit, their emitter is announced so SSE
// streams read them at once. Other processes' events are found by the streams' slow poll.
import { EventEmitter } from "node:events";

const bus = new EventEmitter();
bus.setMaxListeners(0);

export function announceEvents(emitterIds: Iterable<string>): void {
  for (const id of new Set(emitterIds)) bus.emit(id);
}

export function onEvents(emitterId: string, listener: () => void): () => void {
  bus.on(emitterId, listener);
  return () => bus.off(emitterId, listener);
}
