// No symbolic link that leads out of the package cache is ever granted to a runner. Without the
// OS sandbox, Node's permission model checks the path user code asks for, not where a link in
// it leads: a link inside a granted folder would hand the runner whatever it points at (the
// data directory's secret.key, sluice.db, /etc/shadow). So every package folder is checked
// before it is used, once per folder and process, and at start the whole cache is swept: a
// folder holding such a link is removed (it is only a cache) before any runner can read it.
import { chmodSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { join, sep } from "node:path";
import { invalid } from "../../lib/errors.js";

/** The first link under `folder` that does not resolve to a path inside `root`, or undefined. */
export function findEscapingLink(folder: string, root: string): string | undefined {
  const realRoot = realpathSync(root);
  const pending = [folder];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(path);
        } catch {
          // A dangling link may come to point anywhere once its target exists.
          return path;
        }
        if (target !== realRoot && !target.startsWith(realRoot + sep)) return path;
      } else if (entry.isDirectory()) pending.push(path);
    }
  }
  return undefined;
}

export interface PackageLinkGuard {
  /** Throws a VALIDATION error when the package folder holding `packageDir` has a link out of the cache. */
  check(packageDir: string): void;
  /** Removes every top-level cache folder holding such a link; answers the folders removed. */
  sweep(): string[];
}

/**
 * `openToOthers`: a root service's runners run as another user (runner-user.ts), who must be able
 * to enter the folders npm installs into (made by mkdtemp, mode 0700).
 */
export function createPackageLinkGuard(cacheDir: string, options: { openToOthers?: boolean } = {}): PackageLinkGuard {
  const checked = new Set<string>();
  /** The cache's top-level folder (name@version) that holds `path`. */
  const topFolder = (path: string) => {
    const rest = path.slice(cacheDir.length + 1);
    return join(cacheDir, rest.split(sep)[0]!);
  };
  return {
    check(packageDir) {
      if (!packageDir.startsWith(cacheDir + sep)) throw invalid(`${packageDir} is not inside the package cache`);
      const folder = topFolder(packageDir);
      if (checked.has(folder)) return;
      const link = findEscapingLink(folder, cacheDir);
      if (link !== undefined)
        throw invalid(
          `the installed package ${folder.slice(cacheDir.length + 1)} holds a link that leads out of the package cache (${link.slice(folder.length + 1)}); it is not given to user code`,
        );
      if (options.openToOthers) chmodSync(folder, 0o755);
      checked.add(folder);
    },
    sweep() {
      const removed: string[] = [];
      for (const entry of readdirSync(cacheDir, { withFileTypes: true })) {
        const folder = join(cacheDir, entry.name);
        let bad: boolean;
        if (entry.isSymbolicLink()) bad = true;
        else if (!entry.isDirectory()) continue;
        else {
          try {
            bad = findEscapingLink(folder, cacheDir) !== undefined;
          } catch {
            continue; // removed meanwhile (a temporary install folder)
          }
        }
        if (bad) {
          rmSync(folder, { recursive: true, force: true });
          removed.push(entry.name);
        } else if (!entry.name.startsWith(".")) {
          if (options.openToOthers) chmodSync(folder, 0o755);
          checked.add(folder);
        }
      }
      return removed;
    },
  };
}
