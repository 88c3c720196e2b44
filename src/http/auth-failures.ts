// Failed authentications per client address, in fixed one-minute windows: past the limit every
// authentication from that address is refused with a 429 until the window ends, so keys and
// the admin token cannot be guessed at request speed (a right guess is refused too: no oracle).
// Per process and bounded: an address not seen for a window is dropped.
import { ServiceError } from "../lib/errors.js";

const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 100_000;

export interface AuthFailures {
  /** Throws a 429 when `address` used up its failures in the current window. */
  check(address: string, nowMs: number): void;
  record(address: string, nowMs: number): void;
}

export function createAuthFailures(maxPerMinute: number): AuthFailures {
  const windows = new Map<string, { start: number; failures: number }>();
  const current = (address: string, nowMs: number) => {
    const window = windows.get(address);
    return window && nowMs - window.start < WINDOW_MS ? window : undefined;
  };
  return {
    check(address, nowMs) {
      const window = current(address, nowMs);
      if (!window || window.failures < maxPerMinute) return;
      const retryAfterSeconds = Math.max(1, Math.ceil((window.start + WINDOW_MS - nowMs) / 1000));
      throw new ServiceError(
        "LIMIT_EXCEEDED",
        `too many failed authentications from this address (SLUICE_AUTH_FAILURES_PER_MINUTE=${maxPerMinute}), retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    },
    record(address, nowMs) {
      const window = current(address, nowMs);
      if (window) {
        window.failures += 1;
        return;
      }
      if (windows.size >= MAX_ADDRESSES) {
        for (const [key, w] of windows) if (nowMs - w.start >= WINDOW_MS) windows.delete(key);
        if (windows.size >= MAX_ADDRESSES) windows.clear();
      }
      windows.set(address, { start: nowMs, failures: 1 });
    },
  };
}
