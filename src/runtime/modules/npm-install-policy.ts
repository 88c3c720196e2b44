// What npm may put into the package cache: packages from the registry and nothing else. A
// package anyone can publish may declare dependencies as git+file:///…, file:/…/x.tgz,
// file:/some/dir or http://127.0.0.1:…/x.tgz; npm would copy host files into the cache that
// runners read, link host folders into it, or fetch loopback and private URLs. The npm Sluice
// runs is its own dependency (npm 11, whatever npm came with Node), whose --allow-* settings
// refuse those before anything is fetched; the staged install is ALWAYS also checked here, in
// case a setting is overridden (an .npmrc) or npm reads a spec differently than documented.
import { lstat, readdir, readFile, realpath } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** npm's settings that leave only registry packages. */
export const ALLOW_NONE_ARGS = ["--allow-git=none", "--allow-file=none", "--allow-directory=none", "--allow-remote=none"];

const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;
// Versions, ranges and tags use none of ":" "/" "\": every git, file, directory, URL and
// GitHub-shorthand spec has one. A leading "." or a tarball suffix is a path to npm too.
const RANGE_OR_TAG = /^[a-z0-9^~<>=*.|+ _-]*$/i;

/** Whether npm reads `spec` (a dependency's value in package.json) as a registry version, range, tag or npm: alias. */
export function isRegistrySpec(spec: string): boolean {
  if (spec.startsWith("npm:")) {
    const alias = spec.slice(4);
    const at = alias.lastIndexOf("@");
    const name = at > 0 ? alias.slice(0, at) : alias;
    return NAME.test(name) && (at <= 0 || isRegistrySpec(alias.slice(at + 1)));
  }
  return RANGE_OR_TAG.test(spec) && !spec.trimStart().startsWith(".") && !/\.(?:tgz|tar|tar\.gz)\s*$/i.test(spec);
}

interface LockEntry {
  version?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * The first thing in a staged install (the folder given to npm's --prefix) that is not a
 * registry package: a non-registry dependency spec, a `resolved` that is not an http(s)
 * tarball, a linked folder, or a symbolic link that leads out of the folder. Undefined when
 * everything in it came from the registry.
 */
export async function stagedInstallProblem(root: string): Promise<string | undefined> {
  let lock: { packages?: Record<string, LockEntry> };
  try {
    lock = JSON.parse(await readFile(join(root, "node_modules", ".package-lock.json"), "utf8")) as typeof lock;
  } catch {
    return "npm left no record of what it installed (node_modules/.package-lock.json)";
  }
  const entries = Object.entries(lock.packages ?? {});
  const nameOf = (path: string) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
  // The specs first: they are what the package's author wrote, so the answer names them.
  for (const [path, entry] of entries) {
    for (const field of ["dependencies", "optionalDependencies", "peerDependencies"] as const) {
      for (const [dep, spec] of Object.entries(entry[field] ?? {})) {
        if (typeof spec !== "string" || !isRegistrySpec(spec))
          return `${nameOf(path)}@${entry.version ?? "?"} depends on ${dep} at "${String(spec)}"`;
      }
    }
  }
  for (const [path, entry] of entries) {
    if (!path.startsWith("node_modules/")) return `"${path}" lies outside the install`;
    if (entry.link) return `${nameOf(path)} is linked to "${entry.resolved ?? "a folder"}"`;
    if (entry.resolved !== undefined && !/^https?:\/\//i.test(entry.resolved)) return `${nameOf(path)} comes from "${entry.resolved}"`;
  }
  return linkLeadingOut(root);
}

/** A symbolic link under `root` whose target lies outside it (npm's .bin links stay inside). */
async function linkLeadingOut(root: string): Promise<string | undefined> {
  const realRoot = await realpath(root);
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(path);
        } catch {
          return `${relative(root, path)} is a link to nothing`;
        }
        if (target !== realRoot && !target.startsWith(realRoot + sep)) return `${relative(root, path)} is a link out of the install`;
      } else if (entry.isDirectory()) {
        pending.push(path);
      }
    }
  }
  return undefined;
}

/** Bytes of the files under `dir` (links counted as themselves, not followed). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const entry of await readdir(current, { withFileTypes: true }).catch(() => [])) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else total += (await lstat(path).catch(() => undefined))?.size ?? 0;
    }
  }
  return total;
}

/**
 * The dependency npm 11 refused (EALLOW*), from its silly log: npm names only the type it
 * refused, but logs `placeDep <where> <name>@ OK for: <parent> want: <spec>` for each edge.
 */
export function refusedSpecInLog(log: string): string | undefined {
  let found: string | undefined;
  for (const match of log.matchAll(/placeDep \S+ (\S+?)@\S* OK for: (\S*) want: (.+)$/gm)) {
    const spec = match[3]!.trim();
    if (!isRegistrySpec(spec)) found = `${match[2] ? `${match[2]} depends on ` : ""}${match[1]} at "${spec}"`;
  }
  return found;
}

/** npm's error code when it refused a kind of package because of an --allow-* setting. */
export function allowRefusal(stderr: string): string | undefined {
  return /\bcode (EALLOW(?:GIT|FILE|DIRECTORY|REMOTE))\b/.exec(stderr)?.[1];
}
