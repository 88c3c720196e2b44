// Starts one runner process for an account: Node with its permission model, inside the
// bubblewrap sandbox when that is the mode in force. Its file descriptor 3 is the channel to
// the service (runner-channel.ts), stderr is kept for the cause of a crash. User code may write
// to its own /tmp: the sandbox's capped tmpfs, or without the sandbox a temp folder of its own
// that is removed with the runner. What the runner may read are its places (runner-places.ts):
// bound at neutral paths in the sandbox, granted at their real paths without it.
import { spawn, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { permissionFlags, runtimeFeatureFlags } from "./node-flags.js";
import { bwrapArguments } from "./sandbox/bwrap-arguments.js";
import type { SandboxChoice } from "./sandbox/choose-sandbox.js";
import { NEUTRAL, type RunnerPlace } from "./sandbox/runner-places.js";
import { RUNNER_HOME, runnerAccountFiles } from "./sandbox/runner-passwd.js";

export interface RunnerLauncherOptions {
  sandbox: SandboxChoice;
  /** The runner entry script (compiled JavaScript) and its arguments, as the runner sees them. */
  script: string;
  args: string[];
  /** What an account's runner may read. */
  places(key: string): RunnerPlace[];
  /** The runner's environment besides TMPDIR: empty but for what Node reads at startup. */
  env: Record<string, string>;
  memoryMb: number;
  /** Size of the sandbox's /tmp. */
  tmpBytes: number;
  /** Without the sandbox: the unprivileged user a root service runs runners as (runner-user.ts). */
  user?: { uid: number; gid: number };
  /** Wraps the command (with the open-files cap); identity when absent. */
  wrap?(command: string, args: string[]): [string, string[]];
}

export interface LaunchedRunner {
  child: ChildProcess;
  /** Removes what the runner left outside its process (its temp folder). */
  cleanup(): void;
}

/** What one runner gets beyond its account's: arguments and places to read (its egress door). */
export interface RunnerExtras {
  args: string[];
  places: RunnerPlace[];
}

export type LaunchRunner = (key: string, extras?: RunnerExtras) => LaunchedRunner;

const STDIO: Array<"ignore" | "pipe"> = ["ignore", "ignore", "pipe", "pipe"];

/** Permission-model grants: folders end in "/" (their contents). */
const grants = (places: RunnerPlace[]) => places.map((place) => (place.folder ? `${place.runner}/` : place.runner));

export function createRunnerLauncher(options: RunnerLauncherOptions): LaunchRunner {
  const wrap = options.wrap ?? ((command: string, args: string[]): [string, string[]] => [command, args]);
  const nodeArgs = (places: RunnerPlace[], tmp: string, extras: RunnerExtras | undefined) => [
    ...permissionFlags(grants(places), [tmp]),
    ...runtimeFeatureFlags(),
    `--max-old-space-size=${options.memoryMb}`,
    options.script,
    ...options.args,
    ...(extras?.args ?? []),
  ];
  const placesOf = (key: string, extras: RunnerExtras | undefined) => [...options.places(key), ...(extras?.places ?? [])];

  if (options.sandbox.mode === "bwrap") {
    const unprivilegedIds = process.getuid?.() === 0;
    // The ids the runner has inside its user namespace: bwrap maps the service's own, or "nobody".
    const ids: [number, number] = unprivilegedIds ? [65534, 65534] : [process.getuid?.() ?? 0, process.getgid?.() ?? 0];
    return (key, extras) => {
      const places = placesOf(key, extras);
      const account = runnerAccountFiles(...ids);
      const sandboxArgs = bwrapArguments({
        binds: [
          { host: process.execPath, runner: NEUTRAL.node },
          { host: account.passwd, runner: "/etc/passwd" },
          { host: account.group, runner: "/etc/group" },
          ...places,
        ],
        tmpBytes: options.tmpBytes,
        env: { ...options.env, TMPDIR: "/tmp", HOME: RUNNER_HOME },
        unprivilegedIds,
        features: options.sandbox.features,
      });
      const [command, args] = wrap("bwrap", [...sandboxArgs, NEUTRAL.node, ...nodeArgs(places, "/tmp/", extras), "--sandbox=bwrap"]);
      return { child: spawn(command, args, { env: {}, stdio: STDIO }), cleanup: () => {} };
    };
  }

  const { user } = options;
  return (key, extras) => {
    const tmp = mkdtempSync(join(tmpdir(), "sluice-run-"));
    if (user) chownSync(tmp, user.uid, user.gid);
    const [command, args] = wrap(process.execPath, nodeArgs(placesOf(key, extras), `${tmp}/`, extras));
    const child = spawn(command, args, {
      // Its home is its own temp folder: os.homedir() answers, and what a library keeps there goes with the runner.
      env: { ...options.env, TMPDIR: tmp, HOME: tmp },
      stdio: STDIO,
      cwd: tmp,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    return { child, cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
  };
}
