// One runner's cgroup: created with its limits, the runner's processes moved in (their
// children are born inside), read for CPU time and out-of-memory kills, and removed when the
// runner is gone. With cgroup v2 it is one folder; with v1, one folder in each hierarchy
// used (memory, pids, cpuacct are often mounted separately).
import { errorCode, parseKeyValues, type CgroupFs } from "./cgroup-fs.js";

/** Where this service keeps its runners' cgroups: a folder per hierarchy, made by the probe. */
export interface CgroupLayout {
  version: 1 | 2;
  memory: string;
  /** Absent when threads cannot be capped (no pids controller). */
  pids?: string;
  /** Absent when CPU time comes from /proc instead (v1 without a usable cpuacct). */
  cpu?: string;
}

export interface RunnerCgroupLimits {
  memoryBytes: number;
  maxThreads: number;
}

export interface RunnerCgroup {
  readonly folders: string[];
  /** Moves a process (all its threads) in. Rejects with what the kernel refused (ESRCH: it exited). */
  add(pid: number): Promise<void>;
  /** CPU time of everything that ran in the cgroup, in ms; the last value once removed. */
  cpuMs(): number | undefined;
  /** Whether the kernel killed a process of the cgroup for memory; the last answer once removed. */
  oomKilled(): boolean;
  /** Kills what is left inside, then removes the folders; resolves whether all were removed. */
  remove(): Promise<boolean>;
}

export interface RunnerCgroupDeps {
  fs: CgroupFs;
  kill(pid: number, signal: NodeJS.Signals): void;
  delay(ms: number): Promise<void>;
}

/** A just-killed process leaves its cgroup within milliseconds; removal retries meanwhile. */
const REMOVE_ATTEMPTS = 80;
const REMOVE_RETRY_MS = 25;

function writeLimits(fs: CgroupFs, layout: CgroupLayout, folder: { memory: string; pids?: string }, limits: RunnerCgroupLimits): void {
  const { memory, pids } = folder;
  if (layout.version === 2) {
    fs.write(`${memory}/memory.max`, String(limits.memoryBytes));
    // No swap: a runner past its limit must be killed, not slowed down by swapping.
    if (fs.exists(`${memory}/memory.swap.max`)) fs.write(`${memory}/memory.swap.max`, "0");
    // The runner is a process tree: an out-of-memory kill takes all of it, not one member.
    if (fs.exists(`${memory}/memory.oom.group`)) fs.write(`${memory}/memory.oom.group`, "1");
  } else {
    fs.write(`${memory}/memory.limit_in_bytes`, String(limits.memoryBytes));
    // memory+swap at the same figure means no swap; without swap accounting, swappiness 0
    // keeps the cgroup's pages out of swap instead.
    if (fs.exists(`${memory}/memory.memsw.limit_in_bytes`)) fs.write(`${memory}/memory.memsw.limit_in_bytes`, String(limits.memoryBytes));
    else if (fs.exists(`${memory}/memory.swappiness`)) fs.write(`${memory}/memory.swappiness`, "0");
  }
  if (pids) fs.write(`${pids}/pids.max`, String(limits.maxThreads));
}

function readOomKilled(fs: CgroupFs, layout: CgroupLayout, memory: string): boolean {
  if (layout.version === 2) {
    const events = parseKeyValues(fs.read(`${memory}/memory.events`));
    return (events.get("oom_kill") ?? 0) > 0 || (events.get("oom_group_kill") ?? 0) > 0;
  }
  const control = parseKeyValues(fs.read(`${memory}/memory.oom_control`));
  const kills = control.get("oom_kill");
  if (kills !== undefined) return kills > 0;
  // Kernels before 4.13 do not count kills: the limit was reached and usage stood at it.
  const failures = Number(fs.read(`${memory}/memory.failcnt`));
  const peak = Number(fs.read(`${memory}/memory.max_usage_in_bytes`));
  const limit = Number(fs.read(`${memory}/memory.limit_in_bytes`));
  return failures > 0 && peak >= limit;
}

function readCpuMs(fs: CgroupFs, layout: CgroupLayout, cpu: string): number {
  if (layout.version === 2) return (parseKeyValues(fs.read(`${cpu}/cpu.stat`)).get("usage_usec") ?? 0) / 1000;
  return Number(fs.read(`${cpu}/cpuacct.usage`)) / 1e6;
}

/** The processes left in a folder; v2's cgroup.kill takes them all in one write. */
function killAll(deps: RunnerCgroupDeps, layout: CgroupLayout, folder: string): void {
  if (layout.version === 2 && deps.fs.exists(`${folder}/cgroup.kill`)) {
    deps.fs.write(`${folder}/cgroup.kill`, "1");
    return;
  }
  for (const pid of deps.fs.read(`${folder}/cgroup.procs`).split("\n")) {
    if (pid.trim() !== "") deps.kill(Number(pid), "SIGKILL");
  }
}

/** Creates the runner's cgroup named `name` with its limits; throws (after cleaning up) on refusal. */
export function createRunnerCgroup(deps: RunnerCgroupDeps, layout: CgroupLayout, name: string, limits: RunnerCgroupLimits): RunnerCgroup {
  const { fs } = deps;
  const memory = `${layout.memory}/${name}`;
  // Controllers mounted together share a folder: the names are then equal and made once.
  const pids = layout.pids === undefined ? undefined : `${layout.pids}/${name}`;
  const cpu = layout.cpu === undefined ? undefined : `${layout.cpu}/${name}`;
  const folders = [...new Set([memory, pids, cpu].filter((f): f is string => f !== undefined))];
  const made: string[] = [];
  try {
    for (const folder of folders) {
      fs.mkdir(folder);
      made.push(folder);
    }
    writeLimits(fs, layout, { memory, pids }, limits);
  } catch (error) {
    for (const folder of made.reverse()) {
      try {
        fs.rmdir(folder);
      } catch {
        // left behind empty; the probe's note already says cgroups misbehave here
      }
    }
    throw error;
  }

  let removed = false;
  let lastCpuMs: number | undefined;
  let lastOomKilled = false;
  // Once removed, or if a folder vanished under us, the last values stand.
  const sampleCpu = () => {
    if (removed || !cpu) return;
    try {
      lastCpuMs = readCpuMs(fs, layout, cpu);
    } catch {
      // keep the last value
    }
  };
  const sampleOom = () => {
    if (removed) return;
    try {
      lastOomKilled = lastOomKilled || readOomKilled(fs, layout, memory);
    } catch {
      // keep the last value
    }
  };

  return {
    folders,
    async add(pid) {
      for (const folder of folders) await fs.writeInBackground(`${folder}/cgroup.procs`, String(pid));
    },
    cpuMs() {
      sampleCpu();
      return lastCpuMs;
    },
    oomKilled() {
      sampleOom();
      return lastOomKilled;
    },
    async remove() {
      sampleCpu();
      sampleOom();
      removed = true;
      const left = [...folders].reverse();
      for (let attempt = 0; left.length > 0 && attempt < REMOVE_ATTEMPTS; attempt++) {
        if (attempt > 0) await deps.delay(REMOVE_RETRY_MS);
        for (const folder of [...left]) {
          try {
            killAll(deps, layout, folder);
            fs.rmdir(folder);
            left.splice(left.indexOf(folder), 1);
          } catch (error) {
            if (errorCode(error) === "ENOENT") left.splice(left.indexOf(folder), 1);
            // EBUSY: killed processes have not left yet; try again shortly
          }
        }
      }
      return left.length === 0;
    },
  };
}
