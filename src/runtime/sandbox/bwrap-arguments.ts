// The bubblewrap command line around one runner process. The runner sees an empty root with
// only what it needs bound read-only: the system's libraries at their own paths, and at neutral
// paths under /sluice (runner-places.ts) Node, the compiled runner, the package cache, its
// account's module folder and the egress proxy's socket folder, so the host's layout (where the
// data directory is) stays unseen; a size-capped tmpfs on /tmp, its own /proc and a minimal /dev. It gets
// new user, pid, ipc, uts, cgroup and network namespaces: its network namespace has only its
// own loopback interface, so its only way out is the egress proxy's Unix socket.
import { lstatSync, readlinkSync } from "node:fs";

/** Options of the installed bubblewrap that newer versions have (read from `bwrap --help`). */
export interface BwrapFeatures {
  /** `--size` before `--tmpfs` (0.7+). */
  tmpfsSize: boolean;
  /** `--disable-userns` (0.8+): no user namespaces inside the sandbox. */
  disableUserns: boolean;
}

export interface BwrapLayout {
  /** Files and folders bound read-only: `host` (a real path) is seen at `runner` inside. */
  binds: Array<{ host: string; runner: string }>;
  /** Size of the /tmp tmpfs in bytes. */
  tmpBytes: number;
  /** The whole environment of the runner. */
  env: Record<string, string>;
  /** Map the runner to an unprivileged uid/gid inside (when the service runs as root). */
  unprivilegedIds: boolean;
  features: BwrapFeatures;
}

/** uid/gid "nobody": a root service's runners must not be root even inside their namespace. */
const NOBODY = "65534";

/** The system folders Node's shared libraries live in; on merged-/usr systems most are links. */
const SYSTEM_PATHS = ["/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"];

function systemBinds(): string[] {
  const args: string[] = [];
  for (const path of SYSTEM_PATHS) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      continue;
    }
    if (isLink) args.push("--symlink", readlinkSync(path), path);
    else args.push("--ro-bind", path, path);
  }
  // The dynamic linker's cache makes loading Node's libraries faster; absent, it searches.
  args.push("--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache");
  return args;
}

let cachedSystemBinds: string[] | undefined;

export function bwrapArguments(layout: BwrapLayout): string[] {
  const args = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try"];
  if (layout.unprivilegedIds) args.push("--uid", NOBODY, "--gid", NOBODY);
  if (layout.features.disableUserns) args.push("--disable-userns");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "sluice-runner", "--clearenv");
  for (const [name, value] of Object.entries(layout.env)) args.push("--setenv", name, value);
  args.push(...(cachedSystemBinds ??= systemBinds()));
  args.push("--proc", "/proc", "--dev", "/dev");
  if (layout.features.tmpfsSize) args.push("--size", String(layout.tmpBytes));
  args.push("--tmpfs", "/tmp", "--chdir", "/tmp");
  for (const { host, runner } of layout.binds) args.push("--ro-bind", host, runner);
  return args;
}
