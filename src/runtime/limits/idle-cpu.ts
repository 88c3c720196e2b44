// CPU a runner uses while no execution is in it: timers and loops user code left behind
// after run() returned. The pool marks each runner busy when it sends work and idle when
// the work is done; the CPU an idle runner uses from one sample to the next is reported as
// idle CPU, to be counted as the account's compute time (and a runner past a budget
// replaced). Only idle runners are sampled, by one timer for all of them, and the marks read
// nothing: they happen at every batch on the ingest path. So a spell shorter than the
// interval goes unmeasured — a runner burning CPU between executions delays those
// executions instead, which their own time counts.
export interface CpuSource {
  cpuMs(): number;
}

export interface IdleCpuMeter {
  /** An execution starts: the idle spell ends (what it used since its last sample is not counted). */
  busy(): void;
  /** No execution is in the runner any more: sampled from the next tick on. */
  idle(): void;
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
  idle: boolean;
  /** CPU time at the idle spell's last sample; undefined until its first. */
  idleFrom: number | undefined;
  total: number;
}

export function createIdleCpuSampler(options: IdleCpuSamplerOptions = {}): IdleCpuSampler {
  const intervalMs = options.intervalMs ?? 1000;
  const timers = options.timers ?? { setInterval, clearInterval };
  const tracked = new Set<Tracked>();
  let timer: NodeJS.Timeout | undefined;

  /** Reports the idle CPU of an idle runner since its last sample. */
  function sample(entry: Tracked): void {
    const now = entry.runner.cpuMs();
    const from = entry.idleFrom;
    entry.idleFrom = now;
    if (from === undefined || now <= from) return;
    entry.total += now - from;
    entry.onIdleCpu(now - from);
  }

  function tick(): void {
    for (const entry of tracked) if (entry.idle) sample(entry);
  }

  return {
    track(runner, onIdleCpu) {
      const entry: Tracked = { runner, onIdleCpu, idle: false, idleFrom: undefined, total: 0 };
      tracked.add(entry);
      if (!timer) {
        timer = timers.setInterval(tick, intervalMs);
        timer.unref?.();
      }
      return {
        busy() {
          entry.idle = false;
          entry.idleFrom = undefined;
        },
        idle() {
          entry.idle = true;
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
