// Time is injected so tests can control it.
export interface Clock {
  now(): number; // milliseconds since the epoch
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

export const toUnixSeconds = (ms: number): number => Math.floor(ms / 1000);
