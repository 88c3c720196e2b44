// Finds out once, at start, whether runner cgroups work here, by making a trial one with the
// real limits and removing it again: whether a controller is listed says little about
// whether this service may use it (permissions, delegation, read-only mounts).
// cgroup v2 is preferred; v1 is used controller by controller (memory is required, pids
// and cpuacct each optional). Every reason a mechanism was not used becomes a note.
import { randomBytes } from "node:crypto";
import type { CgroupPlaces } from "./cgroup-discovery.js";
import { errorCode, type CgroupFs } from "./cgroup-fs.js";
import { createRunnerCgroup, type CgroupLayout, type RunnerCgroupDeps, type RunnerCgroupLimits } from "./runner-cgroup.js";

export interface CgroupProbeOptions {
  places: CgroupPlaces;
  /**
   * A cgroup v2 folder delegated to the service, to hold its runners' cgroups. By default the
   * service's own cgroup, which works only if nothing runs in it directly (cgroup v2 gives
   * controllers to child cgroups only of a cgroup without processes, the root excepted).
   * Under systemd, Delegate=memory pids with DelegateSubgroup=service runs the service in a
   * leaf of its unit's cgroup; the unit's cgroup is then the one to pass.
   */
  delegatedCgroup?: string;
  /** The folder made for this service's runners in each hierarchy. */
  serviceFolder: string;
  limits: RunnerCgroupLimits;
}

export interface CgroupProbeDeps extends RunnerCgroupDeps {
  /** Whether a process is running (the owner of a service folder left by an earlier run). */
  alive(pid: number): boolean;
}

export interface CgroupProbe {
  layout?: CgroupLayout;
  notes: string[];
}

/** Makes and removes a trial runner cgroup; returns why it failed, if it did. */
function trial(deps: RunnerCgroupDeps, layout: CgroupLayout, limits: RunnerCgroupLimits): string | undefined {
  try {
    const cgroup = createRunnerCgroup(deps, layout, "probe", limits);
    for (const folder of [...cgroup.folders].reverse()) deps.fs.rmdir(folder);
    return undefined;
  } catch (error) {
    return errorCode(error);
  }
}

/** The default name of a service's folder: its pid tells whether it is still in use. */
export function serviceFolderName(pid: number): string {
  return `sluice-${pid}-${randomBytes(3).toString("hex")}`;
}

/**
 * Removes the folders a killed service left (its runner cgroups, then its own), found by the
 * pid in their default name. Only empty cgroups can be removed: one where a runner still runs
 * stays (the runner registry stops such orphans). A service in another pid namespace sharing
 * this parent would look dead: only its empty folder could go, and it would then hold its
 * next runners with the watchdog.
 */
function removeStale(deps: CgroupProbeDeps, parent: string): void {
  let names: string[];
  try {
    names = deps.fs.list(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = /^sluice-(\d+)-[0-9a-f]+$/.exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || deps.alive(Number(owner))) continue;
    const folder = `${parent}/${name}`;
    try {
      for (const runner of deps.fs.list(folder)) removeQuietly(deps.fs, `${folder}/${runner}`);
    } catch {
      // gone meanwhile
    }
    removeQuietly(deps.fs, folder);
  }
}

/** Makes the service's folder under `parent`; an earlier one of the same name is reused. */
function makeFolder(deps: CgroupProbeDeps, parent: string, name: string): string {
  removeStale(deps, parent);
  const { fs } = deps;
  const folder = `${parent}/${name}`;
  try {
    fs.mkdir(folder);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  }
  return folder;
}

function removeQuietly(fs: CgroupFs, folder: string): void {
  try {
    fs.rmdir(folder);
  } catch {
    // not empty or already gone: nothing this service needs
  }
}

function probeV2(deps: CgroupProbeDeps, options: CgroupProbeOptions): CgroupProbe {
  const { fs } = deps;
  const parent = options.delegatedCgroup ?? options.places.v2;
  if (!parent) return { notes: ["cgroup v2: no cgroup2 file system shows this process's cgroup"] };
  const where = `cgroup v2 (${parent})`;
  let available: string[];
  try {
    available = fs.read(`${parent}/cgroup.controllers`).trim().split(/\s+/);
  } catch (error) {
    return { notes: [`${where}: unreadable (${errorCode(error)})`] };
  }
  if (!available.includes("memory")) return { notes: [`${where}: no memory controller (available: ${available.join(" ") || "none"})`] };
  const wanted = available.includes("pids") ? ["memory", "pids"] : ["memory"];
  const notes = wanted.length === 1 ? [`${where}: no pids controller, threads are not capped`] : [];
  const enable = wanted.map((c) => `+${c}`).join(" ");
  let folder: string | undefined;
  try {
    const enabled = fs.read(`${parent}/cgroup.subtree_control`).trim().split(/\s+/);
    if (!wanted.every((c) => enabled.includes(c))) fs.write(`${parent}/cgroup.subtree_control`, enable);
  } catch (error) {
    const hint =
      errorCode(error) === "EBUSY" ? "; processes run in it: run the service in a leaf cgroup and pass its delegated parent" : "";
    return { notes: [...notes, `${where}: cannot give memory to child cgroups (${errorCode(error)})${hint}`] };
  }
  try {
    folder = makeFolder(deps, parent, options.serviceFolder);
    fs.write(`${folder}/cgroup.subtree_control`, enable);
  } catch (error) {
    if (folder) removeQuietly(fs, folder);
    return { notes: [...notes, `${where}: cannot make ${options.serviceFolder} (${errorCode(error)})`] };
  }
  const layout: CgroupLayout = { version: 2, memory: folder, pids: wanted.includes("pids") ? folder : undefined, cpu: folder };
  const failed = trial(deps, layout, options.limits);
  if (failed) {
    removeQuietly(fs, folder);
    return { notes: [...notes, `${where}: a trial runner cgroup failed (${failed})`] };
  }
  return { layout, notes };
}

function probeV1(deps: CgroupProbeDeps, options: CgroupProbeOptions): CgroupProbe {
  const { fs } = deps;
  const notes: string[] = [];
  /** Folders a trial worked in: a controller mounted with memory shares its folder, kept. */
  const proven = new Set<string>();
  /** The service's folder in a controller's hierarchy, once a trial cgroup worked there. */
  const prepare = (controller: string, layoutOf: (folder: string) => CgroupLayout): string | undefined => {
    const parent = options.places.v1.get(controller);
    if (!parent) {
      notes.push(`cgroup v1: no ${controller} hierarchy shows this process's cgroup`);
      return undefined;
    }
    let folder: string | undefined;
    try {
      folder = makeFolder(deps, parent, options.serviceFolder);
    } catch (error) {
      notes.push(`cgroup v1 ${controller} (${parent}): cannot make ${options.serviceFolder} (${errorCode(error)})`);
      return undefined;
    }
    const failed = trial(deps, layoutOf(folder), options.limits);
    if (!failed) {
      proven.add(folder);
      return folder;
    }
    if (!proven.has(folder)) removeQuietly(fs, folder);
    notes.push(`cgroup v1 ${controller} (${parent}): a trial runner cgroup failed (${failed})`);
    return undefined;
  };
  const memory = prepare("memory", (folder) => ({ version: 1, memory: folder }));
  if (!memory) return { notes };
  // A trial in another hierarchy also makes a memory folder: the one already proven.
  const pids = prepare("pids", (folder) => ({ version: 1, memory, pids: folder }));
  if (!pids) notes.push("cgroup v1: threads are not capped");
  const cpu = prepare("cpuacct", (folder) => ({ version: 1, memory, cpu: folder }));
  if (!cpu) notes.push("cgroup v1: CPU time is read from /proc");
  return { layout: { version: 1, memory, pids, cpu }, notes };
}

export function probeCgroups(deps: CgroupProbeDeps, options: CgroupProbeOptions): CgroupProbe {
  const v2 = probeV2(deps, options);
  if (v2.layout) return v2;
  const v1 = probeV1(deps, options);
  return { layout: v1.layout, notes: [...v2.notes, ...v1.notes] };
}

/** Removes the service's folders (empty once every runner's cgroup is gone). */
export function removeServiceFolders(fs: CgroupFs, layout: CgroupLayout): void {
  for (const folder of new Set([layout.memory, layout.pids, layout.cpu])) if (folder) removeQuietly(fs, folder);
}
