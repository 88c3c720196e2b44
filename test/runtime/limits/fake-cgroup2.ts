// A stand-in for a cgroup v2 file system, keeping the kernel's rules that the probe depends
// on: a child cgroup has the controllers its parent enabled in cgroup.subtree_control; a
// cgroup with processes cannot enable controllers for children, nor take processes once it
// has (the root excepted); interface files exist only for enabled controllers; a cgroup with
// processes or children cannot be removed. Used where the machine running the tests has no
// usable cgroup v2, to exercise the v2 logic all the same.
import type { CgroupFs } from "../../../src/runtime/limits/cgroup-fs.js";

interface Folder {
  controllers: string[];
  subtree: string[];
  procs: Set<number>;
  files: Map<string, string>;
}

export interface FakeCgroup2 {
  fs: CgroupFs;
  /** Makes a folder as the system would have (for the service's own cgroup and its parents). */
  add(path: string, options: { controllers: string[]; subtree?: string[]; procs?: number[] }): void;
  folder(path: string): Folder | undefined;
  /** Sets an interface file as the kernel would (cpu.stat, memory.events). */
  set(path: string, value: string): void;
  /** Every write, in order: "path=value". */
  writes: string[];
}

function fail(code: string, path: string): never {
  throw Object.assign(new Error(`${code}: ${path}`), { code });
}

const split = (path: string) => ({ dir: path.slice(0, path.lastIndexOf("/")), name: path.slice(path.lastIndexOf("/") + 1) });

export function createFakeCgroup2(root: string): FakeCgroup2 {
  const folders = new Map<string, Folder>();
  const writes: string[] = [];

  function make(path: string, controllers: string[], subtree: string[] = [], procs: number[] = []): void {
    const files = new Map<string, string>([
      ["cgroup.events", "populated 0\nfrozen 0"],
      ["cgroup.kill", ""],
      ["cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0"],
    ]);
    if (controllers.includes("memory")) {
      for (const [name, value] of [
        ["memory.max", "max"],
        ["memory.swap.max", "max"],
        ["memory.oom.group", "0"],
        ["memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0"],
      ])
        files.set(name!, value!);
    }
    if (controllers.includes("pids")) files.set("pids.max", "max").set("pids.current", "0");
    folders.set(path, { controllers, subtree, procs: new Set(procs), files });
  }

  const folderOf = (path: string) => folders.get(path) ?? fail("ENOENT", path);
  const hasChildren = (path: string) => [...folders.keys()].some((p) => p.startsWith(`${path}/`));

  const fs: CgroupFs = {
    read(path) {
      const { dir, name } = split(path);
      const folder = folderOf(dir);
      if (name === "cgroup.controllers") return folder.controllers.join(" ") + "\n";
      if (name === "cgroup.subtree_control") return folder.subtree.join(" ") + "\n";
      if (name === "cgroup.procs") return [...folder.procs].map((pid) => `${pid}\n`).join("");
      return folder.files.get(name) ?? fail("ENOENT", path);
    },
    write(path, value) {
      const { dir, name } = split(path);
      const folder = folderOf(dir);
      writes.push(`${path}=${value}`);
      if (name === "cgroup.subtree_control") {
        for (const change of value.trim().split(/\s+/)) {
          const controller = change.slice(1);
          if (!folder.controllers.includes(controller)) fail("ENOENT", path);
          if (change.startsWith("+") && folder.procs.size > 0 && dir !== root) fail("EBUSY", path);
          folder.subtree = change.startsWith("+")
            ? [...new Set([...folder.subtree, controller])]
            : folder.subtree.filter((c) => c !== controller);
        }
      } else if (name === "cgroup.procs") {
        if (folder.subtree.length > 0 && dir !== root) fail("EBUSY", path);
        for (const other of folders.values()) other.procs.delete(Number(value));
        folder.procs.add(Number(value));
      } else if (name === "cgroup.kill") {
        folder.procs.clear();
      } else {
        if (!folder.files.has(name)) fail("ENOENT", path);
        folder.files.set(name, value);
      }
    },
    writeInBackground: async (path, value) => fs.write(path, value),
    mkdir(path) {
      if (folders.has(path)) fail("EEXIST", path);
      make(path, folderOf(split(path).dir).subtree);
    },
    rmdir(path) {
      const folder = folderOf(path);
      if (folder.procs.size > 0 || hasChildren(path)) fail("EBUSY", path);
      folders.delete(path);
    },
    list(path) {
      folderOf(path);
      return [...folders.keys()]
        .filter((p) => p.startsWith(`${path}/`) && !p.slice(path.length + 1).includes("/"))
        .map((p) => p.slice(path.length + 1));
    },
    exists(path) {
      if (folders.has(path)) return true;
      const { dir, name } = split(path);
      const folder = folders.get(dir);
      return folder !== undefined && (folder.files.has(name) || name.startsWith("cgroup."));
    },
  };

  return {
    fs,
    add: (path, options) => make(path, options.controllers, options.subtree, options.procs),
    folder: (path) => folders.get(path),
    set(path, value) {
      const { dir, name } = split(path);
      folderOf(dir).files.set(name, value);
    },
    writes,
  };
}
