// Starts one runner process for an account: Node with its permission model, inside the
// bubblewrap sandbox when that is the mode in force. Its file descriptor 3 is the channel to
// the service (runner-channel.ts), stderr is kept for the cause of a crash. User code may write
// to its own /tmp: the sandbox's capped tmpfs, or without the sandbox a temp folder of its own
// that is removed with the runner.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { permissionFlags } from "./node-flags.js";
import { bwrapArguments } from "./sandbox/bwrap-arguments.js";
import type { SandboxChoice } from "./sandbox/choose-sandbox.js";

export interface RunnerLauncherOptions {
  sandbox: SandboxChoice;
  /** The runner entry script (compiled JavaScript) and its arguments. */
  script: string;
  args: string[];
  /** What an account's runner may read: files, and folders ending in "/". */
  readPaths(key: string): string[];
  /** The runner's environment besides TMPDIR: empty but for what Node reads at startup. */
  env: Record<string, string>;
  memoryMb: number;
  /** Size of the sandbox's /tmp. */
  tmpBytes: number;
  /** Wraps the command (with the open-files cap); identity when absent. */
  wrap?(command: string, args: string[]): [string, string[]];
}

export interface LaunchedRunner {
  child: ChildProcess;
  /** Removes what the runner left outside its process (its temp folder). */
  cleanup(): void;
}

/** What one runner gets beyond its account's: arguments and paths to read (its egress door). */
export interface RunnerExtras {
  args: string[];
  readPaths: string[];
}

export type LaunchRunner = (key: string, extras?: RunnerExtras) => LaunchedRunner;

const STDIO: Array<"ignore" | "pipe"> = ["ignore", "ignore", "pipe", "pipe"];

export function createRunnerLauncher(options: RunnerLauncherOptions): LaunchRunner {
  const wrap = options.wrap ?? ((command: string, args: string[]): [string, string[]] => [command, args]);
  const nodeArgs = (readPaths: string[], tmp: string, extras: RunnerExtras | undefined) => [
    ...permissionFlags(readPaths, [tmp]),
    `--max-old-space-size=${options.memoryMb}`,
    options.script,
    ...options.args,
    ...(extras?.args ?? []),
  ];
  const readPathsOf = (key: string, extras: RunnerExtras | undefined) => [...options.readPaths(key), ...(extras?.readPaths ?? [])];

  if (options.sandbox.mode === "bwrap") {
    const unprivilegedIds = process.getuid?.() === 0;
    return (key, extras) => {
      const readPaths = readPathsOf(key, extras);
      const sandboxArgs = bwrapArguments({
        readOnly: [process.execPath, ...readPaths.map((path) => path.replace(/\/$/, ""))],
        tmpBytes: options.tmpBytes,
        env: { ...options.env, TMPDIR: "/tmp" },
        unprivilegedIds,
        features: options.sandbox.features,
      });
      const [command, args] = wrap("bwrap", [...sandboxArgs, process.execPath, ...nodeArgs(readPaths, "/tmp/", extras), "--sandbox=bwrap"]);
      return { child: spawn(command, args, { env: {}, stdio: STDIO }), cleanup: () => {} };
    };
  }

  return (key, extras) => {
    const tmp = mkdtempSync(join(tmpdir(), "sluice-run-"));
    const [command, args] = wrap(process.execPath, nodeArgs(readPathsOf(key, extras), `${tmp}/`, extras));
    const child = spawn(command, args, { env: { ...options.env, TMPDIR: tmp }, stdio: STDIO, cwd: tmp });
    return { child, cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
  };
}
