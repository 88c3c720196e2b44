// CPU time of a process and of everything it started (runners, sandboxes), read from /proc, so
// a benchmark can say what one event costs each part. Reaped children count through the
// parent's cutime/cstime; live ones are read directly.
import { readdirSync, readFileSync } from "node:fs";

/** Linux reports these fields in clock ticks; USER_HZ is 100 on every Linux ABI Node runs on. */
const TICKS_PER_SECOND = 100;

interface Stat {
  pid: number;
  ppid: number;
  ownTicks: number;
  reapedChildrenTicks: number;
}

/** `/proc/<pid>/stat`, or the same line of one of its threads (`/proc/<pid>/task/<tid>/stat`). */
function readStat(pid: number, path = `/proc/${pid}/stat`): Stat | undefined {
  try {
    const text = readFileSync(path, "utf8");
    // The command name may hold spaces and parentheses: fields start after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const number = (index: number) => Number(fields[index - 3]);
    return { pid, ppid: number(4), ownTicks: number(14) + number(15), reapedChildrenTicks: number(16) + number(17) };
  } catch {
    return undefined;
  }
}

function allStats(): Stat[] {
  const stats: Stat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** Every live descendant of `rootPid`. */
function descendantStats(rootPid: number): Stat[] {
  const childrenOf = new Map<number, Stat[]>();
  for (const stat of allStats()) childrenOf.set(stat.ppid, [...(childrenOf.get(stat.ppid) ?? []), stat]);
  const found: Stat[] = [];
  const pending = [...(childrenOf.get(rootPid) ?? [])];
  while (pending.length > 0) {
    const stat = pending.pop()!;
    found.push(stat);
    pending.push(...(childrenOf.get(stat.pid) ?? []));
  }
  return found;
}

export function descendantPids(rootPid: number): number[] {
  return descendantStats(rootPid).map((stat) => stat.pid);
}

export interface TreeCpu {
  /** The process itself, all its threads. */
  ownSeconds: number;
  /** Its descendants, live and reaped. */
  childrenSeconds: number;
}

/** CPU seconds used so far by `rootPid` and by its descendants; undefined where /proc is missing. */
export function treeCpu(rootPid: number): TreeCpu | undefined {
  const root = readStat(rootPid);
  if (!root) return undefined;
  let liveTicks = 0;
  for (const stat of descendantStats(rootPid)) liveTicks += stat.ownTicks + stat.reapedChildrenTicks;
  return { ownSeconds: root.ownTicks / TICKS_PER_SECOND, childrenSeconds: (liveTicks + root.reapedChildrenTicks) / TICKS_PER_SECOND };
}

/**
 * CPU seconds used so far by the main thread of `pid` (its event loop) alone, without the
 * process's other threads; undefined where /proc is missing. In Linux a process's first
 * thread has the process's id.
 */
export function mainThreadCpu(pid: number): number | undefined {
  const stat = readStat(pid, `/proc/${pid}/task/${pid}/stat`);
  return stat && stat.ownTicks / TICKS_PER_SECOND;
}

/** What happened between two readings. */
export function cpuBetween(before: TreeCpu | undefined, after: TreeCpu | undefined): TreeCpu | undefined {
  if (!before || !after) return undefined;
  return { ownSeconds: after.ownSeconds - before.ownSeconds, childrenSeconds: after.childrenSeconds - before.childrenSeconds };
}
