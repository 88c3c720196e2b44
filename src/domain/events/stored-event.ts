// An event as stored for an emitter (source or workflow) on one of its streams.

/** The stream of an event: "" is the default stream; "$errors", "$logs" or a named stream. */
export type StreamName = string;

export interface StoredEvent {
  id: string; // "<ms>-<seq>"
  userId: string;
  emitterId: string; // dc_… or p_…
  stream: StreamName;
  event: unknown;
  /** emit_id, name, emitter_id, plus the emit's id/summary/ts when given (docs/components.md, "Emitting events"). */
  metadata: Record<string, unknown>;
  indexedAtMs: number;
  /** The event as stored (JSON), when the store already serialised it: fan-out reuses it. */
  json?: string;
}
