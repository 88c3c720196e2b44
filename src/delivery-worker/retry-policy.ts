// When to try a failed delivery again: the configured schedule (seconds before retry n) with
// ±20 % jitter, or the endpoint's Retry-After when it gives one (capped at a day).
const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** Milliseconds before the next attempt after `attempts` attempts, or undefined when exhausted. */
export function nextRetryDelayMs(
  schedule: number[],
  attempts: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  return Math.round(base * 1000 * (0.8 + random() * 0.4));
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
