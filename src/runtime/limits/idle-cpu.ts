// CPU a runner uses while no execution is in it: timers and loops user code left behind
// after run() returned. The pool marks each runner busy when it sends work and idle when
// the work is done; CPU between idle and busy is reported as idle CPU, to be counted as the
// account's compute time (and a runner past a budget replaced). Only idle runners are
// sampled, by one timer for all of them, so an account's steady traffic costs nothing extra;
// the marks themselves read the CPU time unless the pool passes a reading it already made.
export interface CpuSource {
  cpuMs(): number;
}

export interface IdleCpuMeter {
  /** An execution starts: the idle spell ends (its CPU up to `cpuMsNow` is reported). */
  busy(cpuMsNow?: number): void;
  /** No execution is in the runner any more, from `cpuMsNow` on. */
  idle(cpuMsNow?: number): void;
  /** Idle CPU reported so far, in ms. */
  idleCpuMs(): number;
  /** The runner is gone: no more sampling. */
  untrack(): void;
}

export interface IdleCpuSampler {
  /**
   * Meters a runner, busy at first (starting up is not idle time). `onIdleCpu` is called
   * with each positive amount of idle CPU, in ms, as it is measured.
   */
  track(runner: CpuSource, onIdleCpu: (deltaMs: number) => void): IdleCpuMeter;
  /** Samples every idle runner now (the timer's work): for tests. */
  tick(): void;
  close(): void;
}

export interface IdleCpuSamplerOptions {
  /** How often idle runners are sampled (1000 ms by default). */
  intervalMs?: number;
  timers?: { setInterval(fn: () => void, ms: number): NodeJS.Timeout; clearInterval(timer: NodeJS.Timeout): void };
}

interface Tracked {
  runner: CpuSource;
  onIdleCpu(deltaMs: number): void;
  /** CPU time when the current idle spell was last sampled; undefined while busy. */
  idleFrom: number | undefined;
  total: number;
}

export function createIdleCpuSampler(options: IdleCpuSamplerOptions = {}): IdleCpuSampler {
  const intervalMs = options.intervalMs ?? 1000;
  const timers = options.timers ?? { setInterval, clearInterval };
  const tracked = new Set<Tracked>();
  let timer: NodeJS.Timeout | undefined;

  /** Reports the idle CPU since the last sample, up to `now`. */
  function settle(entry: Tracked, now: number): void {
    if (entry.idleFrom === undefined) return;
    const delta = now - entry.idleFrom;
    entry.idleFrom = now;
    if (delta <= 0) return;
    entry.total += delta;
    entry.onIdleCpu(delta);
  }

  function tick(): void {
    for (const entry of tracked) if (entry.idleFrom !== undefined) settle(entry, entry.runner.cpuMs());
  }

  return {
    track(runner, onIdleCpu) {
      const entry: Tracked = { runner, onIdleCpu, idleFrom: undefined, total: 0 };
      tracked.add(entry);
      if (!timer) {
        timer = timers.setInterval(tick, intervalMs);
        timer.unref?.();
      }
      return {
        busy(cpuMsNow) {
          if (entry.idleFrom === undefined) return;
          settle(entry, cpuMsNow ?? runner.cpuMs());
          entry.idleFrom = undefined;
        },
        idle(cpuMsNow) {
          if (entry.idleFrom !== undefined) return;
          entry.idleFrom = cpuMsNow ?? runner.cpuMs();
        },
        idleCpuMs: () => entry.total,
        untrack() {
          tracked.delete(entry);
          if (tracked.size === 0 && timer) {
            timers.clearInterval(timer);
            timer = undefined;
          }
        },
      };
    },
    tick,
    close() {
      tracked.clear();
      if (timer) timers.clearInterval(timer);
      timer = undefined;
    },
  };
}
