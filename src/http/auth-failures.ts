// Failed authentications per client address, in fixed one-minute windows: past the limit every
// authentication from that address is refused with a 429 until the window ends, so keys and
// the admin token cannot be guessed at request speed (a right guess is refused too: no oracle).
import { ServiceError } from "../lib/errors.js";
import { createMinuteWindows, secondsLeft, WINDOW_MS } from "./minute-windows.js";

export interface AuthFailures {
  /** Throws a 429 when `address` used up its failures in the current window. */
  check(address: string, nowMs: number): void;
  record(address: string, nowMs: number): void;
  /** No failure from any address within the last window: nobody's authentication is refused. */
  quiet(nowMs: number): boolean;
}

export function createAuthFailures(maxPerMinute: number): AuthFailures {
  const windows = createMinuteWindows();
  let lastFailureAt = -Infinity;
  return {
    check(address, nowMs) {
      const window = windows.current(address, nowMs);
      if (!window || window.count < maxPerMinute) return;
      const retryAfterSeconds = secondsLeft(window, nowMs);
      throw new ServiceError(
        "LIMIT_EXCEEDED",
        `too many failed authentications from this address (SLUICE_AUTH_FAILURES_PER_MINUTE=${maxPerMinute}), retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    },
    record(address, nowMs) {
      windows.add(address, nowMs);
      lastFailureAt = Math.max(lastFailureAt, nowMs);
    },
    quiet(nowMs) {
      return nowMs - lastFailureAt >= WINDOW_MS;
    },
  };
}
