// The fallback where no cgroup can hold a runner: one timer for all runners sums the private
// resident memory of each runner's process tree and kills the whole tree past the limit.
// Coarser than a cgroup: a runner may overshoot by what it allocates in one interval (filled
// Buffers at about 0.5 GB/s on a small VM, so some 100 MB at 200 ms, more on a fast machine),
// and memory that is in no process's resident set (files in a tmpfs) is not seen.
import { privatePages, processTree, startTimeOf } from "./proc-tree.js";

/**
 * Every round reads the children of each process's main thread only; every this many rounds,
 * those of all its threads, so that a child started from a worker thread is counted within
 * a few seconds at most, for a tenth of the cost.
 */
const ALL_THREADS_EVERY = 10;

export interface MemoryWatchdogOptions {
  limitBytes: number;
  intervalMs: number;
  procRoot: string;
  pageSize: number;
  kill(pid: number, signal: NodeJS.Signals): void;
  timers: { setInterval(fn: () => void, ms: number): NodeJS.Timeout; clearInterval(timer: NodeJS.Timeout): void };
}

export interface MemoryWatchdog {
  /**
   * Watches a runner's tree from now on; `onKill` says when it was killed for memory. `kill`
   * must ignore processes that are already gone.
   */
  watch(pid: number, onKill: (bytes: number) => void): { unwatch(): void };
  /** Runs one round now (the timer's work): for tests and for measuring its cost. */
  tick(): void;
  close(): void;
}

interface Watched {
  pid: number;
  /** Tells the runner from a later process given the same pid after it exited. */
  startTime: string | undefined;
  onKill(bytes: number): void;
}

export function createMemoryWatchdog(options: MemoryWatchdogOptions): MemoryWatchdog {
  const watched = new Set<Watched>();
  let timer: NodeJS.Timeout | undefined;
  let round = 0;

  function killTree(entry: Watched, tree: number[], bytes: number): void {
    // The runner's pid is not reused while the pool has not reaped it, but it may have been
    // reaped just now: check it is still the same process before killing anything.
    if (startTimeOf(options.procRoot, entry.pid) !== entry.startTime) return;
    // Parents first: a killed parent forks no more children while the rest are killed.
    for (const pid of tree) options.kill(pid, "SIGKILL");
    watched.delete(entry);
    entry.onKill(bytes);
  }

  function tick(): void {
    const allThreads = round++ % ALL_THREADS_EVERY === 0;
    for (const entry of watched) {
      const tree = processTree(options.procRoot, entry.pid, allThreads);
      let pages = 0;
      for (const pid of tree) pages += privatePages(options.procRoot, pid);
      const bytes = pages * options.pageSize;
      if (bytes > options.limitBytes) killTree(entry, tree, bytes);
    }
    if (watched.size === 0) stopTimer();
  }

  function stopTimer(): void {
    if (timer) options.timers.clearInterval(timer);
    timer = undefined;
  }

  return {
    watch(pid, onKill) {
      const entry: Watched = { pid, startTime: startTimeOf(options.procRoot, pid), onKill };
      watched.add(entry);
      if (!timer) {
        timer = options.timers.setInterval(tick, options.intervalMs);
        // The watchdog never keeps the service alive by itself.
        timer.unref?.();
      }
      return {
        unwatch() {
          watched.delete(entry);
          if (watched.size === 0) stopTimer();
        },
      };
    },
    tick,
    close() {
      watched.clear();
      stopTimer();
    },
  };
}
