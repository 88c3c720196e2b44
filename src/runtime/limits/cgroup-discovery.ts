// Where this process's cgroups are, as folders: from /proc/self/cgroup (the cgroup of each
// hierarchy, relative to the hierarchy's root) and /proc/self/mountinfo (where each
// hierarchy is mounted, and which part of it the mount shows, as in a container).
// Pure parsing: the caller reads the two files.
import { posix } from "node:path";

export interface CgroupPlaces {
  /** The unified (v2) cgroup of this process, when a cgroup2 file system shows it. */
  v2?: string;
  /** The v1 cgroup of this process per controller name ("memory", "pids", "cpuacct"). */
  v1: Map<string, string>;
}

interface Mount {
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** mountinfo escapes spaces and a few other characters as octal (\040). */
const unescape = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

function parseMounts(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split("\n")) {
    const separator = line.indexOf(" - ");
    if (separator < 0) continue;
    const before = line.slice(0, separator).split(" ");
    const [fsType, , superOptions = ""] = line.slice(separator + 3).split(" ");
    if (fsType !== "cgroup" && fsType !== "cgroup2") continue;
    mounts.push({ root: unescape(before[3] ?? "/"), mountPoint: unescape(before[4] ?? ""), fsType, superOptions: superOptions.split(",") });
  }
  return mounts;
}

/** The folder showing cgroup `path` under `mount`, unless the mount shows another part. */
function folderOf(mount: Mount, path: string): string | undefined {
  const relative = posix.relative(mount.root, path);
  if (relative.startsWith("..")) return undefined;
  return posix.join(mount.mountPoint, relative);
}

export function findCgroupPlaces(selfCgroup: string, mountinfo: string): CgroupPlaces {
  const mounts = parseMounts(mountinfo);
  const places: CgroupPlaces = { v1: new Map() };
  for (const line of selfCgroup.split("\n")) {
    // "hierarchy-id:controller-list:path"; the path may itself contain colons.
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, id, controllerList, path] = match as unknown as [string, string, string, string];
    if (id === "0" && controllerList === "") {
      const mount = mounts.find((m) => m.fsType === "cgroup2");
      const folder = mount && folderOf(mount, path);
      if (folder) places.v2 = folder;
      continue;
    }
    const controllers = controllerList.split(",");
    const mount = mounts.find((m) => m.fsType === "cgroup" && controllers.every((c) => m.superOptions.includes(c)));
    const folder = mount && folderOf(mount, path);
    if (!folder) continue;
    for (const controller of controllers) places.v1.set(controller, folder);
  }
  return places;
}
