// Child processes of tests: waiting for their exit, and ending what a SIGKILL leaves behind
// (a killed service's runner processes are re-parented, not ended, so tests end them by pid).
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** Resolves once the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Descendants of a process (Linux /proc), read before it is killed. */
export function descendants(pid: number): number[] {
  try {
    const direct = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    return direct.flatMap((child) => [child, ...descendants(child)]);
  } catch {
    return [];
  }
}

/** SIGKILLs each pid that is still there. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
