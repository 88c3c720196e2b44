// Caps and measures each runner's process tree: memory (Buffers included, not only the V8
// heap), threads, open files, and CPU time. Probed once at start, it uses the best mechanism
// that works here — a cgroup per runner (v2, else v1), else a watchdog polling /proc — and
// says which in `description` (one line for logs and health) and why others were not used in
// `notes`. The pool calls attach() right after spawning a runner and stop() once it exited.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { findCgroupPlaces } from "./cgroup-discovery.js";
import { errorCode, realCgroupFs, type CgroupFs } from "./cgroup-fs.js";
import { probeCgroups, removeServiceFolders, serviceFolderName, type CgroupProbeDeps } from "./cgroup-probe.js";
import { createMemoryWatchdog, type MemoryWatchdog } from "./memory-watchdog.js";
import { createOpenFilesCap } from "./open-files.js";
import { cpuMsOf, processTree, setOomScoreAdj } from "./proc-tree.js";
import { createRunnerCgroup, type CgroupLayout, type RunnerCgroup } from "./runner-cgroup.js";
import { isAlive } from "../process-alive.js";

export interface RunnerLimitsOptions {
  /** Memory of a runner's whole process tree. */
  memoryMb: number;
  /** Tasks (processes and threads) of a runner's tree: a Node process alone has about ten. */
  maxThreads: number;
  /** Open file descriptors of each process of a runner. */
  maxOpenFiles: number;
  /** "auto" (default) uses a cgroup when one works; "watchdog" forces the fallback. */
  mechanism?: "auto" | "watchdog";
  /** How often the watchdog checks every runner (200 ms by default). */
  watchdogIntervalMs?: number;
  /** A cgroup v2 folder delegated to the service (see CgroupProbeOptions.delegatedCgroup). */
  delegatedCgroup?: string;
  /** Name of the folder holding this instance's runner cgroups (unique per instance by default). */
  serviceFolder?: string;
  /** Where /proc is, and how cgroup files are reached: stand-ins for tests. */
  procRoot?: string;
  cgroupFs?: CgroupFs;
  /** Where prlimit is looked for (PATH by default). */
  searchPath?: string;
}

/** "none": no /proc to watch (not Linux); only the V8 heap limit holds then. */
export type MemoryMechanism = "cgroup-v2" | "cgroup-v1" | "watchdog" | "none";

export interface RunnerHandle {
  readonly pid: number;
  /**
   * Resolves once the runner's processes are in its cgroup (at once without one). Moving
   * them takes about 10 ms of kernel time, done off the event loop; until then the runner's
   * allocations are charged to the service's cgroup, so send it user code only after this.
   */
  readonly ready: Promise<void>;
  /** The runner's cgroup folders (none when watched instead): for logs and tests. */
  readonly cgroupFolders: readonly string[];
  /** How this runner is held: the instance's mechanism, or the watchdog if its cgroup could not be made. */
  readonly memoryMechanism: MemoryMechanism;
  /** User + system CPU time of the runner's whole tree so far, in ms (never decreasing). */
  cpuMs(): number;
  /** Whether the runner was killed for memory (by the kernel in its cgroup, or by the watchdog). */
  exitedForMemory(): boolean;
  /** Call once the runner exited: kills what is left of its tree and removes its cgroup. */
  stop(): Promise<void>;
}

export interface RunnerLimits {
  readonly description: string;
  readonly notes: readonly string[];
  readonly mechanisms: {
    memory: MemoryMechanism;
    threads: "cgroup-v2" | "cgroup-v1" | "none";
    cpu: "cgroup-v2" | "cgroup-v1" | "proc" | "none";
    openFiles: "prlimit" | "none";
  };
  /** The runner's command with the open-files cap applied (unchanged without prlimit). */
  wrapCommand(command: string, args: string[]): { command: string; args: string[] };
  /**
   * Call right after spawning. Until the handle is ready the runner is not yet in its
   * cgroup: what it allocates meanwhile (Node's start-up, a few MB) is charged elsewhere.
   */
  attach(pid: number): RunnerHandle;
  /**
   * Stops every attached runner (what still runs in a runner's cgroup is killed; a watched
   * runner is only no longer watched) and removes this instance's cgroup folders.
   */
  close(): Promise<void>;
}

/** The kernel's out-of-memory killer takes runners first, never the service. */
const OOM_SCORE_ADJ = 1000;
const DEFAULT_WATCHDOG_INTERVAL_MS = 200;

function pageSize(): number {
  const result = spawnSync("getconf", ["PAGESIZE"], { encoding: "utf8" });
  const size = Number(result.stdout);
  return Number.isInteger(size) && size > 0 ? size : 4096;
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already exited
  }
}

export function createRunnerLimits(options: RunnerLimitsOptions): RunnerLimits {
  const procRoot = options.procRoot ?? "/proc";
  const fs = options.cgroupFs ?? realCgroupFs;
  const memoryBytes = options.memoryMb * 1024 * 1024;
  const intervalMs = options.watchdogIntervalMs ?? DEFAULT_WATCHDOG_INTERVAL_MS;
  const deps: CgroupProbeDeps = { fs, kill: killQuietly, delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), alive: isAlive };

  const notes: string[] = [];
  let layout: CgroupLayout | undefined;
  const hasProc = existsSync(`${procRoot}/self/statm`);
  if (!hasProc) notes.push(`no ${procRoot} (not Linux): neither cgroups nor the watchdog can hold runners`);
  else if (options.mechanism === "watchdog") notes.push("cgroups not tried: the watchdog is forced by configuration");
  else {
    const places = findCgroupPlaces(readFileSync(`${procRoot}/self/cgroup`, "utf8"), readFileSync(`${procRoot}/self/mountinfo`, "utf8"));
    const probe = probeCgroups(deps, {
      places,
      delegatedCgroup: options.delegatedCgroup,
      serviceFolder: options.serviceFolder ?? serviceFolderName(process.pid),
      limits: { memoryBytes, maxThreads: options.maxThreads },
    });
    layout = probe.layout;
    notes.push(...probe.notes);
  }
  const openFiles = createOpenFilesCap(options.maxOpenFiles, options.searchPath ?? process.env.PATH ?? "");

  const cgroupKind = layout ? (`cgroup-v${layout.version}` as const) : undefined;
  const mechanisms: RunnerLimits["mechanisms"] = {
    memory: cgroupKind ?? (hasProc ? "watchdog" : "none"),
    threads: layout?.pids ? cgroupKind! : "none",
    cpu: layout?.cpu ? cgroupKind! : hasProc ? "proc" : "none",
    openFiles: openFiles.mechanism,
  };
  const description = [
    layout
      ? `memory ≤ ${options.memoryMb} MB per runner tree, no swap (cgroup v${layout.version} under ${layout.memory})`
      : hasProc
        ? `memory ≤ ${options.memoryMb} MB per runner tree (watchdog: private resident memory of the tree every ${intervalMs} ms, SIGKILL past it)`
        : "memory not capped beyond the V8 heap",
    layout?.pids ? `threads ≤ ${options.maxThreads} (pids cgroup)` : "threads not capped",
    layout?.cpu ? `CPU time from the cgroup` : hasProc ? "CPU time from /proc" : "CPU time not measured",
    openFiles.description,
    hasProc ? `oom_score_adj ${OOM_SCORE_ADJ}` : "no oom_score_adj",
  ].join("; ");

  // Made on first use: with a working cgroup it serves only runners whose cgroup failed.
  let watchdog: MemoryWatchdog | undefined;
  const watchdogOf = () =>
    (watchdog ??= createMemoryWatchdog({
      limitBytes: memoryBytes,
      intervalMs,
      procRoot,
      pageSize: pageSize(),
      kill: killQuietly,
      timers: { setInterval, clearInterval },
    }));
  const live = new Set<RunnerHandle>();
  let sequence = 0;

  function attach(pid: number): RunnerHandle {
    // The score first, on the tree as it is now (bwrap forks early): whatever these
    // processes fork from now on inherits it.
    for (const member of processTree(procRoot, pid, true)) setOomScoreAdj(procRoot, member, OOM_SCORE_ADJ);
    let cgroup: RunnerCgroup | undefined;
    if (layout) {
      try {
        cgroup = createRunnerCgroup(deps, layout, `runner-${pid}-${++sequence}`, { memoryBytes, maxThreads: options.maxThreads });
      } catch {
        cgroup = undefined; // this runner is watched instead
      }
    }
    let killedForMemory = false;
    let watch: { unwatch(): void } | undefined;
    const watchInstead = () => (watch = watchdogOf().watch(pid, () => (killedForMemory = true)));
    if (!cgroup && hasProc) watchInstead();

    // The root first, so that what it forks from then on is born inside; then the children
    // it already had (listed after the root moved, so none is missed in between).
    const moveIn = async (runnerCgroup: RunnerCgroup) => {
      try {
        await runnerCgroup.add(pid);
      } catch (error) {
        cgroup = undefined;
        void runnerCgroup.remove();
        // ESRCH: the runner already exited, and its handle only reports.
        if (errorCode(error) !== "ESRCH") watchInstead();
        return;
      }
      // A child forked before its parent moved is not born inside: list again after every
      // round of moves until no new process shows up (one forked after its parent's move is
      // born inside; one forked before it is listed by the next round).
      const moved = new Set([pid]);
      for (;;) {
        const fresh = processTree(procRoot, pid, true).filter((member) => !moved.has(member));
        if (fresh.length === 0) break;
        for (const child of fresh) {
          moved.add(child);
          setOomScoreAdj(procRoot, child, OOM_SCORE_ADJ);
          await runnerCgroup.add(child).catch(() => undefined); // exited meanwhile
        }
      }
    };
    const ready = cgroup ? moveIn(cgroup) : Promise.resolve();

    let lastCpuMs = 0;
    let stopped: Promise<void> | undefined;
    const handle: RunnerHandle = {
      pid,
      ready,
      get cgroupFolders() {
        return cgroup?.folders ?? [];
      },
      get memoryMechanism() {
        return cgroup ? mechanisms.memory : watch ? "watchdog" : "none";
      },
      cpuMs() {
        let now = cgroup?.cpuMs();
        // Main threads' children only: this is read at every execution's start and end.
        if (now === undefined && !stopped) now = processTree(procRoot, pid, false).reduce((sum, p) => sum + cpuMsOf(procRoot, p), 0);
        // A descendant that exited unwaited takes its time along: never report less than before.
        lastCpuMs = Math.max(lastCpuMs, now ?? 0);
        return lastCpuMs;
      },
      exitedForMemory: () => killedForMemory || (cgroup?.oomKilled() ?? false),
      stop() {
        stopped ??= (async () => {
          live.delete(handle);
          await ready;
          watch?.unwatch();
          await cgroup?.remove();
        })();
        return stopped;
      },
    };
    live.add(handle);
    return handle;
  }

  return {
    description,
    notes,
    mechanisms,
    wrapCommand: openFiles.wrapCommand,
    attach,
    async close() {
      await Promise.all([...live].map((handle) => handle.stop()));
      watchdog?.close();
      if (layout) removeServiceFolders(fs, layout);
    },
  };
}
