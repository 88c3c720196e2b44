// The /v1 rate limit: requests per account in fixed one-minute windows. It is counted after
// authentication, so every key of an account draws on one bucket and a guessed key never gets
// one of its own (failed authentications are limited per address, auth-failures.ts). Every
// response says where the account stands (x-ratelimit-limit, -remaining, -reset in seconds);
// past the limit the request is a 429 with Retry-After.
//
// Counted synchronously where the request is authenticated (auth.ts, cached-reads.ts): it is
// on every API request, and the plugin used before (a chain of promises per request) cost
// more than the rest of a cached read (docs/adr/0046-api-rate-limit-counted-where-requests-are-authenticated.md).
import { ServiceError } from "../lib/errors.js";
import { createMinuteWindows, secondsLeft, type MinuteWindow } from "./minute-windows.js";

export interface RateLimitDecision {
  /** The x-ratelimit-* headers of the response. */
  headers: Record<string, string>;
  /** The 429 to answer instead, once the account is past its limit. */
  refusal?: ServiceError;
}

export interface AccountRateLimit {
  /** Counts one request of `account`. */
  take(account: string, nowMs: number): RateLimitDecision;
  /** Counts one request of `account` only if it is admitted: its headers then, else undefined (nothing counted). */
  takeIfAdmitted(account: string, nowMs: number): Record<string, string> | undefined;
}

export function createAccountRateLimit(maxPerMinute: number): AccountRateLimit {
  const windows = createMinuteWindows();
  const limit = String(maxPerMinute);
  const headersOf = (window: MinuteWindow, resetSeconds: number) => ({
    "x-ratelimit-limit": limit,
    "x-ratelimit-remaining": String(Math.max(0, maxPerMinute - window.count)),
    "x-ratelimit-reset": String(resetSeconds),
  });
  return {
    take(account, nowMs) {
      const window = windows.add(account, nowMs);
      const reset = secondsLeft(window, nowMs);
      const headers = headersOf(window, reset);
      if (window.count <= maxPerMinute) return { headers };
      return {
        headers,
        refusal: new ServiceError("LIMIT_EXCEEDED", `rate limit exceeded, retry in ${reset} s`, { retryAfterSeconds: reset }),
      };
    },
    takeIfAdmitted(account, nowMs) {
      if ((windows.current(account, nowMs)?.count ?? 0) >= maxPerMinute) return undefined;
      const window = windows.add(account, nowMs);
      return headersOf(window, secondsLeft(window, nowMs));
    },
  };
}
