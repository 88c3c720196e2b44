// Counts per key (a client address, an account) in fixed one-minute windows: a key's window
// starts at its first count and its count starts again a minute later. Per process and
// bounded: keys whose window ended are dropped when the table is full.

export const WINDOW_MS = 60_000;
const MAX_KEYS = 100_000;

export interface MinuteWindow {
  count: number;
  /** When the window ends, in ms since the epoch. */
  endsAt: number;
}

export interface MinuteWindows {
  /** The key's window, if one is open at `nowMs`. */
  current(key: string, nowMs: number): MinuteWindow | undefined;
  /** Counts one for `key` and returns its window. */
  add(key: string, nowMs: number): MinuteWindow;
}

export function createMinuteWindows(): MinuteWindows {
  const windows = new Map<string, MinuteWindow>();
  const current = (key: string, nowMs: number) => {
    const window = windows.get(key);
    return window && nowMs < window.endsAt ? window : undefined;
  };
  return {
    current,
    add(key, nowMs) {
      const window = current(key, nowMs);
      if (window) {
        window.count += 1;
        return window;
      }
      if (windows.size >= MAX_KEYS) {
        for (const [old, w] of windows) if (nowMs >= w.endsAt) windows.delete(old);
        if (windows.size >= MAX_KEYS) windows.clear();
      }
      const opened = { count: 1, endsAt: nowMs + WINDOW_MS };
      windows.set(key, opened);
      return opened;
    },
  };
}

/** Seconds until `window` ends, at least 1: what a 429's Retry-After says. */
export function secondsLeft(window: MinuteWindow, nowMs: number): number {
  return Math.max(1, Math.ceil((window.endsAt - nowMs) / 1000));
}
