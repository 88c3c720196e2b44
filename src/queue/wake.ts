// In-process wake-up signal: every queue of this process hears that jobs were added, so a
// worker claims them without waiting for its safety poll.
type Listener = () => void;
const listeners = new Set<Listener>();

export function onJobsAdded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signalJobsAdded(): void {
  for (const listener of listeners) listener();
}
