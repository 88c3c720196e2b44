// Runner processes outlive a service that was killed with SIGKILL (Linux does not stop
// children with their parent), and one stuck in a loop of user code never notices that its
// IPC channel closed. Each runner is recorded as an empty file "<pid>-<parent pid>"; when a
// service starts, it kills recorded runners whose parent is gone — after checking that the
// process really is a runner, so a reused pid is never hit — and leaves those of live
// services sharing the data directory alone.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "./process-alive.js";

export interface RunnerRegistry {
  record(pid: number): void;
  forget(pid: number): void;
  /** Kills orphaned runners of services that died; returns how many. */
  reapOrphans(): number;
}

function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return undefined;
  }
}

export function createRunnerRegistry(dir: string, script: string): RunnerRegistry {
  mkdirSync(dir, { recursive: true });
  const entry = (pid: number) => join(dir, `${pid}-${process.pid}`);
  return {
    record: (pid) => writeFileSync(entry(pid), ""),
    forget: (pid) => rmSync(entry(pid), { force: true }),
    reapOrphans() {
      let reaped = 0;
      for (const name of readdirSync(dir)) {
        const match = /^(\d+)-(\d+)$/.exec(name);
        if (!match) continue;
        const pid = Number(match[1]);
        const parent = Number(match[2]);
        if (isAlive(parent) && parent !== process.pid) continue; // another live service's runner
        if (isAlive(pid) && commandLine(pid)?.includes(script)) {
          process.kill(pid, "SIGKILL");
          reaped++;
        }
        rmSync(join(dir, name), { force: true });
      }
      return reaped;
    },
  };
}
