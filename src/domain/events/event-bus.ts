// In-process wake-ups for live tails: after events commit, their emitter is announced so SSE
// streams read them at once. Other processes' events are found by the streams' slow poll.
// One bus per context (Ctx.liveEvents): an app hears only its own database's events.
import { EventEmitter } from "node:events";

export class LiveEvents {
  private readonly bus = new EventEmitter();

  constructor() {
    this.bus.setMaxListeners(0);
  }

  announce(emitterIds: Iterable<string>): void {
    for (const id of new Set(emitterIds)) this.bus.emit(id);
  }

  listen(emitterId: string, listener: () => void): () => void {
    this.bus.on(emitterId, listener);
    return () => this.bus.off(emitterId, listener);
  }
}
