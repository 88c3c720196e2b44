// Serves real npm packages from this project's node_modules through a test's loopback registry
// (npm-registry.ts): the package and every package it needs, each at the version installed
// here, with its own package.json and files. Tests then install published packages (e.g.
// `@pipedream/<app>`, added as devDependencies) without reaching the internet.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../src/runtime/package-root.js";
import { locateInstalled } from "./locate-installed.js";
import type { NpmRegistry } from "./npm-registry.js";

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

/** Every file of a package folder (its own node_modules left out), by path inside it. */
function packageFiles(dir: string, base = ""): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  for (const entry of readdirSync(join(dir, base), { withFileTypes: true })) {
    const path = base ? `${base}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") Object.assign(files, packageFiles(dir, path));
    } else if (entry.isFile()) files[path] = readFileSync(join(dir, path));
  }
  return files;
}

/** Publishes each named package and its dependency closure; answers the versions published. */
export function publishInstalled(registry: NpmRegistry, names: string[]): Record<string, string> {
  const root = join(packageRoot(), "node_modules");
  const seen = new Set<string>();
  const versions: Record<string, string> = {};
  const visit = (name: string, fromDir: string) => {
    const dir = locateInstalled(name, fromDir, root);
    if (!dir) throw new Error(`${name} is not installed in the project`);
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
    // Optional dependencies stay out: one not installed here could not be served.
    registry.publish({ name: manifest.name, version: manifest.version, files: packageFiles(dir), dependencies: manifest.dependencies });
    versions[manifest.name] ??= manifest.version;
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir);
  };
  for (const name of names) visit(name, root);
  return versions;
}
