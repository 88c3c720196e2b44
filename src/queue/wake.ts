// In-process wake-up signal: every queue of this process hears which job types were added,
// so a worker claims them without waiting for its safety poll, and only claims those types.
// `dueNow` says none of the added jobs is scheduled for later: a worker's timer for the next
// due job stays as it was. `keys` names the concurrency keys of the added jobs (when every
// job has one and they are few): a worker that already runs its limit of each of those keys
// has nothing to claim for them, and skips the claim (it claims again when a key frees).
import { randomString } from "../lib/ids.js";

export interface WakeSignal {
  types: readonly string[];
  dueNow: boolean;
  keys?: readonly string[];
  /** NOTIFY only: the process that sent it and woke its own workers in-process already. */
  origin?: string;
}

/**
 * This process, in the NOTIFYs whose jobs it also announced in-process after their commit:
 * its own listener skips them instead of claiming a second time (the in-process wake-up
 * comes as soon as the commit returns, the NOTIFY a few hundred µs later).
 */
export const THIS_PROCESS = randomString(12);

/** More keys than this (or any job without a key) and a signal says "any key". */
const MAX_SIGNAL_KEYS = 64;

type Listener = (signal: WakeSignal) => void;
const listeners = new Set<Listener>();

export function onJobsAdded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signalJobsAdded(signal: WakeSignal): void {
  for (const listener of listeners) listener(signal);
}

/** The signal for added jobs, from their types, run times and concurrency keys. */
export function wakeSignalFor(
  jobs: ReadonlyArray<{ type: string; run_at: number; concurrency_key: string | null }>,
  now: number,
): WakeSignal {
  const types = new Set<string>();
  const keys = new Set<string>();
  let everyJobKeyed = true;
  for (const job of jobs) {
    types.add(job.type);
    if (job.concurrency_key === null) everyJobKeyed = false;
    else keys.add(job.concurrency_key);
  }
  const signal: WakeSignal = { types: [...types], dueNow: jobs.every((job) => job.run_at <= now) };
  if (everyJobKeyed && keys.size <= MAX_SIGNAL_KEYS) signal.keys = [...keys];
  return signal;
}

/** The NOTIFY payload (JSON, well under PostgreSQL's 8,000 bytes for MAX_SIGNAL_KEYS ids). */
export function encodeWakeSignal(signal: WakeSignal): string {
  const payload: { now: boolean; types: readonly string[]; keys?: readonly string[]; origin?: string } = {
    now: signal.dueNow,
    types: signal.types,
  };
  if (signal.keys) payload.keys = signal.keys;
  if (signal.origin) payload.origin = signal.origin;
  return JSON.stringify(payload);
}

/** undefined (anything may be due) when the payload is not a signal of this version. */
export function decodeWakeSignal(payload: string | undefined): WakeSignal | undefined {
  let parsed: { now?: unknown; types?: unknown; keys?: unknown; origin?: unknown };
  try {
    parsed = JSON.parse(payload ?? "");
  } catch {
    return undefined;
  }
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    typeof parsed.now !== "boolean" ||
    !strings(parsed.types) ||
    parsed.types.length === 0
  )
    return undefined;
  const signal: WakeSignal = { types: parsed.types, dueNow: parsed.now };
  if (strings(parsed.keys)) signal.keys = parsed.keys;
  if (typeof parsed.origin === "string") signal.origin = parsed.origin;
  return signal;
}
