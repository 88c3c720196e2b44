// Caps the open files of a runner. RLIMIT_NOFILE is per process and inherited, so it is set
// before the runner's command starts, by prefixing `prlimit --nofile=N:N --` (util-linux):
// the hard limit equals the soft one so user code cannot raise it back. No cgroup counts
// file descriptors, hence this separate mechanism.
// (RLIMIT_NPROC is not used for threads: it counts every process of the user id, all
// runners and the service together.)
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export interface OpenFilesCap {
  /** "prlimit" when the cap is applied, "none" otherwise. */
  mechanism: "prlimit" | "none";
  description: string;
  wrapCommand(command: string, args: string[]): { command: string; args: string[] };
}

export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(delimiter)) {
    if (folder === "") continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * Checks once that prlimit can set the limit and start a program (a container may deny the
 * prlimit64 system call), by starting `node --version` through it.
 */
export function createOpenFilesCap(maxOpenFiles: number, searchPath: string): OpenFilesCap {
  const unchanged = (command: string, args: string[]) => ({ command, args });
  const prlimit = findExecutable("prlimit", searchPath);
  if (!prlimit) return { mechanism: "none", description: "open files not capped (no prlimit)", wrapCommand: unchanged };
  const option = `--nofile=${maxOpenFiles}:${maxOpenFiles}`;
  const check = spawnSync(prlimit, [option, "--", process.execPath, "--version"], { stdio: "ignore", timeout: 10_000 });
  if (check.status !== 0) {
    return {
      mechanism: "none",
      description: `open files not capped (prlimit failed: ${check.error?.message ?? `exit ${check.status}`})`,
      wrapCommand: unchanged,
    };
  }
  return {
    mechanism: "prlimit",
    description: `open files ≤ ${maxOpenFiles} (prlimit)`,
    wrapCommand: (command, args) => ({ command: prlimit, args: [option, "--", command, ...args] }),
  };
}
