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
import { createMinuteWindows, secondsLeft } from "./minute-windows.js";

export interface RateLimitDecision {
  /** The x-ratelimit-* headers of the response. */
  headers: Record<string, string>;
  /** The 429 to answer instead, once the account is past its limit. */
  refusal?: ServiceError;
}

export interface AccountRateLimit {
  /** Whether one more request of `account` would be admitted now; counts nothing. */
  admits(account: string, nowMs: number): boolean;
  /** Counts one request of `account`. */
  take(account: string, nowMs: number): RateLimitDecision;
}

export function createAccountRateLimit(maxPerMinute: number): AccountRateLimit {
  const windows = createMinuteWindows();
  const limit = String(maxPerMinute);
  return {
    admits(account, nowMs) {
      return (windows.current(account, nowMs)?.count ?? 0) < maxPerMinute;
    },
    take(account, nowMs) {
      const window = windows.add(account, nowMs);
      const reset = secondsLeft(window, nowMs);
      const headers = {
        "x-ratelimit-limit": limit,
        "x-ratelimit-remaining": String(Math.max(0, maxPerMinute - window.count)),
        "x-ratelimit-reset": String(reset),
      };
      if (window.count <= maxPerMinute) return { headers };
      return {
        headers,
        refusal: new ServiceError("LIMIT_EXCEEDED", `rate limit exceeded, retry in ${reset} s`, { retryAfterSeconds: reset }),
      };
    },
  };
}
