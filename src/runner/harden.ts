// Closes what Node's permission model leaves open inside a runner process, before any user
// code is loaded: the environment, raw bindings, signals and priorities of other processes,
// native addons and the inspector hooks of other processes. The permission model itself
// (flags set by the service) denies file reads outside the allowed folders, all file writes,
// child processes and worker threads.
import os from "node:os";

function deny(name: string) {
  return () => {
    const error = new Error(`${name} is not available in the Sluice runner`) as NodeJS.ErrnoException;
    error.code = "ERR_ACCESS_DENIED";
    throw error;
  };
}

function lock(target: object, name: string, value: unknown): void {
  try {
    Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: false });
  } catch {
    // Already locked by an earlier call: nothing to do.
  }
}

export function harden(): void {
  // The runner's own writable folder stays known to os.tmpdir(), which otherwise reads TMPDIR.
  const tmp = process.env.TMPDIR;
  // HOME (that same folder) stays: os.homedir() and libraries looking for a home read it.
  const home = process.env.HOME;
  for (const name of Object.keys(process.env)) delete process.env[name];
  if (tmp) lock(os, "tmpdir", () => tmp);
  if (home) process.env.HOME = home;

  const ownPid = process.pid;
  const kill = process.kill.bind(process);
  lock(process, "kill", (pid: number, signal?: string | number) => {
    if (Number(pid) !== ownPid) deny("process.kill of another process")();
    return kill(pid, signal);
  });
  const setPriority = os.setPriority.bind(os);
  lock(os, "setPriority", (pidOrPriority: number, priority?: number) => {
    if (priority !== undefined && pidOrPriority !== 0 && pidOrPriority !== ownPid) deny("os.setPriority of another process")();
    return priority === undefined ? setPriority(pidOrPriority) : setPriority(pidOrPriority, priority);
  });
  for (const name of [
    "binding",
    "_linkedBinding",
    "_kill",
    "_debugProcess",
    "_debugEnd",
    "dlopen",
    "_startProfilerIdleNotifier",
    "_stopProfilerIdleNotifier",
  ]) {
    lock(process, name, deny(`process.${name}`));
  }
}
