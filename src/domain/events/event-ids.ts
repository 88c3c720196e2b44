// Event ids "<ms>-<seq>": strictly increasing within this process, and above a floor (the
// emitter's newest stored id) so they keep increasing across processes and restarts.
let lastMs = 0;
let lastSeq = -1;

export interface EventKey {
  ms: number;
  seq: number;
}

export function nextEventKey(nowMs: number, floor?: EventKey): EventKey {
  let ms = Math.max(nowMs, lastMs);
  let seq = ms === lastMs ? lastSeq + 1 : 0;
  if (floor && (ms < floor.ms || (ms === floor.ms && seq <= floor.seq))) {
    ms = floor.ms;
    seq = floor.seq + 1;
  }
  lastMs = ms;
  lastSeq = seq;
  return { ms, seq };
}

/** Keeps later keys of this process above `key`, one the database chose (append-events.ts). */
export function noteEventKey(key: EventKey): void {
  if (key.ms > lastMs || (key.ms === lastMs && key.seq > lastSeq)) {
    lastMs = key.ms;
    lastSeq = key.seq;
  }
}

export const formatEventId = (key: EventKey): string => `${key.ms}-${key.seq}`;

/** Parses "<ms>-<seq>"; undefined when malformed. */
export function parseEventId(id: string): EventKey | undefined {
  const match = /^(\d{1,16})-(\d{1,9})$/.exec(id);
  if (!match) return undefined;
  return { ms: Number(match[1]), seq: Number(match[2]) };
}
