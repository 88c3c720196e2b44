// Where a package of this project's node_modules is, as Node's resolution would find it.
import { existsSync } from "node:fs";
import { join, sep } from "node:path";

/** The folder of `name` as Node would find it from `fromDir` (a package folder under `root`), or undefined. */
export function locateInstalled(name: string, fromDir: string, root: string): string | undefined {
  // Node looks in node_modules of the package, then of each package it is nested in, then the root.
  for (let dir = fromDir; dir.startsWith(root + sep); dir = dir.slice(0, dir.lastIndexOf(`${sep}node_modules${sep}`))) {
    const nested = join(dir, "node_modules", name);
    if (existsSync(join(nested, "package.json"))) return nested;
  }
  const hoisted = join(root, name);
  return existsSync(join(hoisted, "package.json")) ? hoisted : undefined;
}
