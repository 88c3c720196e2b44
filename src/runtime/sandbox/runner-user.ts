// Without the OS sandbox, a root service runs its runners as an unprivileged user (uid and gid
// 65534, "nobody"), so the files of the data directory that are the service's alone (secret.key,
// sluice.db and its journal files, the sources' files) stay closed to user code even past Node's
// permission model. That user must still reach what a runner needs, wherever the service was
// installed:
// - the compiled runner (src/runner) is copied into a fresh folder others can read (a checkout may sit in a
//   folder only root can enter);
// - the data directory lets others pass through (o+x, no listing) to its `runtime` folder, and
//   everything else in it is closed to others;
// - a probe then starts Node as that user and reads the package cache. When a folder above the
//   data directory is closed to others (a data directory under a home folder of mode 0700), the
//   packages and modules are kept for this process only in a fresh folder under the system's
//   temp folder, with a warning; when Node itself cannot start as that user, the service refuses
//   to start and says what to change.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandboxUnavailableError } from "./choose-sandbox.js";

export const RUNNER_UID = 65534;
export const RUNNER_GID = 65534;

/** A file or folder of the compiled runner and where it goes below the runner's copy. */
export interface AppFile {
  host: string;
  relative: string;
}

export interface RunnerUser {
  uid: number;
  gid: number;
  /** The runner's copy of the compiled runner. */
  appRoot: string;
  /** The folder of packages and modules: the data directory's `runtime`, or a temp one (see `warning`). */
  runtimeData: string;
  warning?: string;
  /** Removes the copy. */
  close(): void;
}

/** Whether runners of this process run as the unprivileged user: a root service without the sandbox. */
export function needsRunnerUser(sandboxMode: "bwrap" | "none"): boolean {
  return sandboxMode === "none" && process.getuid?.() === 0;
}

function openTree(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) openTree(join(path, name));
  } else chmodSync(path, 0o644);
}

/** Everything in the data directory but its `runtime` folder is closed to other users. */
function closeDataDir(dataDir: string, runtimeName: string): void {
  // Made now when absent, so that it is closed before the first source's files land in it.
  mkdirSync(join(dataDir, "source-files"), { recursive: true, mode: 0o700 });
  for (const name of readdirSync(dataDir)) {
    if (name === runtimeName) continue;
    const path = join(dataDir, name);
    const stat = lstatSync(path);
    if (!stat.isSymbolicLink() && (stat.mode & 0o007) !== 0) chmodSync(path, stat.mode & 0o7770);
  }
  const mode = statSync(dataDir).mode;
  if ((mode & 0o001) === 0) chmodSync(dataDir, (mode & 0o7777) | 0o001);
}

/** Why the runner user cannot start Node and stat these paths, or undefined when it can. */
function probe(paths: string[]): string | undefined {
  const result = spawnSync(process.execPath, ["-e", "for (const p of process.argv.slice(1)) require('fs').statSync(p)", ...paths], {
    uid: RUNNER_UID,
    gid: RUNNER_GID,
    env: {},
    encoding: "utf8",
    timeout: 10_000,
  });
  if (!result.error && result.status === 0) return undefined;
  return (
    result.error?.message ??
    result.stderr
      .trim()
      .split("\n")
      .find((line) => /Error|EACCES|ENOENT/.test(line)) ??
    `exit code ${result.status ?? result.signal}`
  );
}

/** `runtimeData`: the data directory's `runtime` folder (a real path, made already). */
export function prepareRunnerUser(options: { dataDir: string; runtimeData: string; app: AppFile[] }): RunnerUser {
  const appRoot = realpathSync(mkdtempSync(join(tmpdir(), "sluice-app-")));
  const made: string[] = [appRoot];
  const cleanup = () => made.forEach((path) => rmSync(path, { recursive: true, force: true }));
  try {
    for (const file of options.app) cpSync(file.host, join(appRoot, file.relative), { recursive: true, dereference: true });
    openTree(appRoot);
    closeDataDir(options.dataDir, "runtime");
    let runtimeData = options.runtimeData;
    let warning: string | undefined;
    openRuntime(runtimeData);
    const reached = probe([join(appRoot, "package.json"), join(runtimeData, "packages")]);
    if (reached !== undefined) {
      const nodeRuns = probe([join(appRoot, "package.json")]);
      if (nodeRuns !== undefined) {
        throw new SandboxUnavailableError(
          `runners of a root service without the OS sandbox run as uid ${RUNNER_UID}, which cannot start Node (${process.execPath}): ${nodeRuns}. Install Node where other users can run it, or use SLUICE_SANDBOX=bwrap`,
        );
      }
      runtimeData = realpathSync(mkdtempSync(join(tmpdir(), "sluice-runtime-")));
      made.push(runtimeData);
      openRuntime(runtimeData);
      warning =
        `runners run as uid ${RUNNER_UID}, which cannot reach ${join(options.runtimeData, "packages")} (${reached}): npm packages and modules are kept in ${runtimeData} for this process only. ` +
        `Let other users enter the folders above the data directory (chmod o+x) to keep them across restarts`;
    }
    return { uid: RUNNER_UID, gid: RUNNER_GID, appRoot, runtimeData, warning, close: cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** The runner user passes through the runtime folder, lists the cache, enters its module folder. */
function openRuntime(runtimeData: string): void {
  chmodSync(runtimeData, 0o711);
  for (const name of ["packages", "modules"]) {
    mkdirSync(join(runtimeData, name), { recursive: true });
    chmodSync(join(runtimeData, name), name === "packages" ? 0o755 : 0o711);
  }
}
