// Which version of an npm package an import of component code gets, as npm would choose it for
// that code: the range the nearest package.json declares (found beside the code's URL or among
// its component_files, walking up), else the version pinned in the specifier (`pkg@1.2.3`), else
// the newest. A require() of a package whose newest major is ESM only (which require() cannot
// load on this Node), with nothing declared or pinned, gets the newest major require() can load.
import { readFileSync, statSync } from "node:fs";
import { dirname, extname, join, posix, relative, sep } from "node:path";
import { fetchCodeIfFound } from "./fetch-code.js";
import type { ModuleOrigin } from "./relative-imports.js";

/** How far up from a module's folder a package.json is looked for. */
const MAX_LEVELS = 8;
/** Older majors tried for a require() before giving up (each is one npm install). */
const MAX_OLDER_MAJORS = 4;
/** A range or tag npm resolves in the registry (not a URL, path, git or alias spec). */
const REGISTRY_RANGE = /^[a-z0-9^~<>=*.|+ -]+$/i;

export type Dependencies = Record<string, string>;

/** The declared dependencies of the nearest package.json, per folder, for one preparation. */
export function createManifestFinder(options: { files: Map<string, string> | undefined; allowPrivateEgress: boolean }) {
  const byFolder = new Map<string, Promise<Dependencies | undefined>>();

  function atUrl(folder: URL, level: number): Promise<Dependencies | undefined> {
    const key = folder.toString();
    let found = byFolder.get(key);
    if (!found) {
      found = (async () => {
        // A package.json that cannot be had (refused, an error) counts as none: the imports then
        // resolve as they would without one.
        const text = await fetchCodeIfFound(new URL("package.json", folder).toString(), { allowPrivate: options.allowPrivateEgress }).catch(
          () => undefined,
        );
        if (text !== undefined) return dependenciesOf(text);
        if (level >= MAX_LEVELS || folder.pathname === "/") return undefined;
        return atUrl(new URL("../", folder), level + 1);
      })();
      byFolder.set(key, found);
    }
    return found;
  }

  function inFiles(folder: string, level: number): Dependencies | undefined {
    const text = options.files?.get(posix.normalize(posix.join(folder, "package.json")));
    if (text !== undefined) return dependenciesOf(text);
    if (level >= MAX_LEVELS) return undefined;
    return inFiles(posix.join(folder, ".."), level + 1);
  }

  return {
    /** The dependencies declared for a module from this origin (undefined: no package.json). */
    async forModule(origin: ModuleOrigin | undefined): Promise<Dependencies | undefined> {
      if (!origin) return undefined;
      if ("url" in origin) return atUrl(new URL("./", origin.url), 0);
      return inFiles(posix.dirname(origin.path || "entry"), 0);
    },
  };
}

/** dependencies win over peer and optional ones; only ranges npm resolves in the registry count. */
export function dependenciesOf(text: string): Dependencies | undefined {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!manifest || typeof manifest !== "object") return undefined;
  const out: Dependencies = {};
  for (const field of ["optionalDependencies", "peerDependencies", "dependencies"]) {
    const deps = manifest[field];
    if (!deps || typeof deps !== "object") continue;
    for (const [name, range] of Object.entries(deps as Record<string, unknown>))
      if (typeof range === "string" && REGISTRY_RANGE.test(range.trim()) && range.trim() !== "") out[name] = range.trim();
  }
  return out;
}

type Install = (name: string, version: string | undefined) => Promise<string>;

/**
 * The installed folder of a package a require() may load: the one given when it can, else the
 * newest older major that can (node-fetch 3 is ESM only: require() gets node-fetch 2).
 */
export async function requireLoadableInstall(name: string, subpath: string, packageDir: string, install: Install): Promise<string> {
  let dir = packageDir;
  for (let tries = 0; tries < MAX_OLDER_MAJORS && !requireCanLoad(dir, subpath); tries++) {
    const major = Number(/^(\d+)\./.exec(versionOf(dir) ?? "")?.[1]);
    if (!Number.isInteger(major) || major < 1) return packageDir;
    let older: string;
    try {
      older = await install(name, `<${major}.0.0`);
    } catch {
      return packageDir; // no older major at all: keep the newest, whose error then says why
    }
    dir = older;
  }
  return requireCanLoad(dir, subpath) ? dir : packageDir;
}

function readManifest(dir: string): Record<string, any> | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
}

const versionOf = (dir: string): string | undefined => {
  const version = readManifest(dir)?.version;
  return typeof version === "string" ? version : undefined;
};

/** Whether Node 20's require() loads this package (and subpath): a CommonJS file is what it resolves to. */
export function requireCanLoad(packageDir: string, subpath: string): boolean {
  const manifest = readManifest(packageDir);
  if (!manifest) return true;
  let target: string | null | undefined;
  if (manifest.exports !== undefined && manifest.exports !== null) {
    target = exportTarget(manifest.exports, `.${subpath}`);
    if (target === undefined) return true; // a pattern or shape not read here: let Node decide
    if (target === null) return false; // exported for import only
  } else if (subpath !== "") {
    target = `.${subpath}`;
  } else {
    target = typeof manifest.main === "string" && manifest.main !== "" ? manifest.main : "index.js";
  }
  const file = join(packageDir, target);
  const extension = extname(file);
  if (extension === ".cjs" || extension === ".json" || extension === ".node") return true;
  if (extension === ".mjs") return false;
  const isFolder = statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
  return typeAt(packageDir, isFolder ? file : dirname(file)) !== "module";
}

/** The "type" of the nearest package.json from a folder up to the package's root. */
function typeAt(packageDir: string, folder: string): string | undefined {
  let current = folder;
  for (;;) {
    const type = readManifest(current)?.type;
    if (typeof type === "string") return type;
    if (current === packageDir || relative(packageDir, current).startsWith("..") || !current.includes(sep)) return undefined;
    current = dirname(current);
  }
}

/** The file an `exports` map gives require() for a subpath: null when none, undefined when unknown. */
function exportTarget(exports: unknown, subpath: string): string | null | undefined {
  const isMap = exports && typeof exports === "object" && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith("."));
  const entry = isMap ? (exports as Record<string, unknown>)[subpath] : subpath === "." ? exports : undefined;
  if (entry === undefined) return undefined;
  return conditional(entry);
}

function conditional(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    for (const each of value) {
      const found = conditional(each);
      if (found !== null) return found;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [condition, inner] of Object.entries(value)) {
      if (condition !== "require" && condition !== "node" && condition !== "default") continue;
      const found = conditional(inner);
      if (found !== null) return found;
    }
  }
  return null;
}
