// In-process wake-up signal: every queue of this process hears which job types were added,
// so a worker claims them without waiting for its safety poll, and only claims those types.
type Listener = (types: readonly string[]) => void;
const listeners = new Set<Listener>();

export function onJobsAdded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signalJobsAdded(types: readonly string[]): void {
  for (const listener of listeners) listener(types);
}

/** The NOTIFY payload naming the added job types (empty: any type, claim them all). */
export function encodeWakeTypes(types: readonly string[]): string {
  return types.join(",");
}

export function decodeWakeTypes(payload: string | undefined): string[] | undefined {
  return payload ? payload.split(",") : undefined;
}
