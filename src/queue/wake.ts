// In-process wake-up signal: every queue of this process hears which job types were added,
// so a worker claims them without waiting for its safety poll, and only claims those types.
// `dueNow` says none of the added jobs is scheduled for later: a worker's timer for the next
// due job stays as it was.
export interface WakeSignal {
  types: readonly string[];
  dueNow: boolean;
}

type Listener = (signal: WakeSignal) => void;
const listeners = new Set<Listener>();

export function onJobsAdded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signalJobsAdded(signal: WakeSignal): void {
  for (const listener of listeners) listener(signal);
}

/** The NOTIFY payload: "now:" or "later:" and the added job types (empty: anything may be due). */
export function encodeWakeSignal(signal: WakeSignal): string {
  return `${signal.dueNow ? "now" : "later"}:${signal.types.join(",")}`;
}

export function decodeWakeSignal(payload: string | undefined): WakeSignal | undefined {
  const match = /^(now|later):(.+)$/.exec(payload ?? "");
  return match ? { dueNow: match[1] === "now", types: match[2]!.split(",") } : undefined;
}
