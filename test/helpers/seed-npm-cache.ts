// Puts npm packages into a Sluice data folder's package cache as the service's own `npm
// install` would lay them out (src/runtime/modules/npm-cache.ts: <cache>/<name>@<version>/
// node_modules/<name> with its dependencies flat beside it, and `latest` recorded as resolved
// to that version), copied from this project's
// node_modules, so tests use real packages without reaching a registry. Copies, not links: the
// sandbox binds only the cache folder.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { entryName, rangeAliasPath } from "../../src/runtime/modules/npm-cache.js";
import { packageRoot } from "../../src/runtime/package-root.js";
import { locateInstalled } from "./locate-installed.js";

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** `name` and every package it needs, as folders of the project's node_modules. */
export function dependencyClosure(name: string): Map<string, string> {
  const root = join(packageRoot(), "node_modules");
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (pkg: string, fromDir: string, optional: boolean) => {
    const dir = locateInstalled(pkg, fromDir, root);
    if (!dir) {
      if (optional) return;
      throw new Error(`${pkg} is not installed in the project (needed to seed ${name})`);
    }
    if (seen.has(dir)) return;
    seen.add(dir);
    // A package nested under another comes with its parent's folder; its own needs still count.
    if (dir === join(root, pkg)) found.set(pkg, dir);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  visit(name, root, false);
  return found;
}

/** Seeds `<dataDir>/runtime/packages` with each package, as what an unpinned import (`latest`) resolved to. */
export function seedNpmCache(dataDir: string, names: string[]): void {
  const cache = join(dataDir, "runtime", "packages");
  for (const name of names) {
    const closure = dependencyClosure(name);
    const { version } = JSON.parse(readFileSync(join(closure.get(name)!, "package.json"), "utf8")) as { version: string };
    const alias = rangeAliasPath(cache, name, "latest");
    mkdirSync(dirname(alias), { recursive: true });
    writeFileSync(alias, JSON.stringify({ name, range: "latest", version }));
    const target = join(cache, entryName(name, version), "node_modules");
    for (const [pkg, dir] of closure) cpSync(dir, join(target, pkg), { recursive: true, dereference: true });
  }
}
