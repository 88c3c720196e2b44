// The one way tests wait: poll a probe until it gives a value (anything but false, undefined,
// null, 0 or ""), and fail with what was awaited once the deadline passes. A probe that throws
// fails the wait at once (its assertions count), unless the caller asks to retry errors.
// Polling starts fast and backs off, so waiting on the database does not load a busy machine.
import { AssertionError } from "node:assert";

export interface WaitOptions {
  /** What is awaited, for the failure message (default: the probe's source text). */
  what?: string;
  /** The deadline: a bound against hangs, never a pause (it returns as soon as the probe holds). */
  timeoutMs?: number;
  /** A fixed interval between probes; 0 polls on every turn of the event loop. Default: 5 ms doubling up to 100 ms. */
  intervalMs?: number;
  /** Ask again when the probe throws (what it reads may not exist yet); the last error goes into the failure. */
  retryErrors?: boolean;
}

export const DEFAULT_WAIT_MS = 10_000;

type Found<T> = Exclude<T, false | undefined | null | 0 | "">;

/** Waits until `probe` gives a value and returns it; `options` may be just the timeout in ms. */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitOptions | number = {}): Promise<Found<T>> {
  const {
    what,
    timeoutMs = DEFAULT_WAIT_MS,
    intervalMs,
    retryErrors = false,
  }: WaitOptions = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let delay = intervalMs ?? 5;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Found<T>;
      lastError = undefined;
    } catch (error) {
      if (!retryErrors) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason =
        lastError === undefined ? "" : `; the last probe threw: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      throw new AssertionError({ message: `timed out after ${timeoutMs} ms waiting for ${what ?? probe.toString()}${reason}` });
    }
    await (delay === 0 ? new Promise((resolve) => setImmediate(resolve)) : new Promise((resolve) => setTimeout(resolve, delay)));
    if (intervalMs === undefined) delay = Math.min(delay * 2, 100);
  }
}
