// Prepares component code for a runner: one folder per account and code hash under the data
// folder, holding the entry module, the files its relative imports fetched from component_url,
// and a node_modules of relative links into the shared npm cache, which the data directory's
// `runtime` folder holds beside the modules: the links resolve alike on the host and where the
// sandbox binds that layout at neutral paths. A runner may read only its own account's folder
// and the npm cache (see src/runtime/component-runner.ts). A component of a registry package
// needs no folder: it is loaded from the installed package (ADR 0026). Each preparation marks
// the cache entries it links as used, and is made again when one of them has been evicted from
// the cache since (package-cache-lru.ts).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { CodeOrigin, PackageEntry } from "../code-runner.js";
import { invalid } from "../../lib/errors.js";
import { parseCodeUrl } from "./fetch-code.js";
import { ENTRY_PATH, normalizeFiles, relativeTarget, type ModuleOrigin } from "./relative-imports.js";
import type { NpmCache } from "./npm-cache.js";
import { createManifestFinder, requireLoadableInstall, type Dependencies } from "./declared-versions.js";
import {
  SDK_MODULES,
  findSpecifiers,
  kindOf,
  looksLikeEsm,
  parsePackageSpecifier,
  rewriteSpecifiers,
  type PackageRequest,
} from "./specifiers.js";

export interface ModuleStore {
  /** The folder a runner of this account may read. */
  accountDir(userId: string): string;
  /** Writes the code and everything it imports (or installs its package); returns the entry module's path. */
  prepare(input: { userId: string; code: string } & CodeOrigin): Promise<string>;
}

const MAX_FILES = 100;
/** The installed package folders a prepared folder links, one per line. */
const PACKAGES_FILE = ".packages";
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
/**
 * Part of every folder's hash: folders built with absolute links to the cache, or with every
 * import at its newest version whatever was declared, are not reused.
 */
const LAYOUT = "relative-links+declared-versions";

/** A folder name for an account id; ids are URL-safe already, anything else is hashed. */
const safeName = (id: string) => (/^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : sha(id).slice(0, 32));

interface Prepared {
  entry: string;
  /** The installed package folders (in the npm cache) it links. */
  packages: string[];
}

export function createModuleStore(options: { dir: string; npm: NpmCache; allowPrivateEgress: boolean }): ModuleStore {
  const prepared = new Map<string, Promise<Prepared>>();

  async function build(
    userId: string,
    code: string,
    codeUrl: string | undefined,
    componentFiles: Record<string, string> | undefined,
    hash: string,
    stale: boolean,
  ): Promise<Prepared> {
    const accountDir = join(options.dir, safeName(userId));
    const finalDir = join(accountDir, hash);
    const entryName = `component${looksLikeEsm(code) ? ".mjs" : ".cjs"}`;
    if (stale) await rm(finalDir, { recursive: true, force: true });
    else if (existsSync(join(finalDir, ".ready"))) return { entry: join(finalDir, entryName), packages: await linkedPackages(finalDir) };
    await mkdir(accountDir, { recursive: true });
    const temp = await mkdtemp(join(accountDir, ".prepare-"));
    try {
      // Readable by a root service's runners, which run as another user (runner-user.ts).
      await chmod(temp, 0o755);
      const files = new Map<string, string>(); // module id or import key → local file name
      const links = new Map<string, string>(); // package name → installed folder
      // Files sent with the code win over its URL: they are what the code was written against.
      const sources = componentFiles ? normalizeFiles(componentFiles) : undefined;
      const origin: ModuleOrigin | undefined = sources
        ? { path: ENTRY_PATH }
        : codeUrl
          ? { url: parseCodeUrl(codeUrl).toString() }
          : undefined;
      const manifests = createManifestFinder({ files: sources, allowPrivateEgress: options.allowPrivateEgress });
      const context: WriteContext = { userId, dir: temp, sources, files, links, manifests, requireChecked: new Set() };
      await writeModule(context, entryName, code, origin);
      await mkdir(join(temp, "node_modules", "@sluice"), { recursive: true });
      await writeSdk(join(temp, "node_modules"));
      for (const [name, installed] of links) {
        const link = join(temp, "node_modules", name);
        await mkdir(dirname(link), { recursive: true });
        if (!existsSync(link)) await symlink(relative(dirname(link), installed), link, "dir");
      }
      await writeFile(join(temp, PACKAGES_FILE), [...links.values()].join("\n"));
      await writeFile(join(temp, ".ready"), "");
      try {
        await rename(temp, finalDir);
      } catch (error) {
        if (!existsSync(join(finalDir, ".ready"))) throw error;
      }
      return { entry: join(finalDir, entryName), packages: [...links.values()] };
    } finally {
      await rm(temp, { recursive: true, force: true }).catch(() => {});
    }
  }

  async function writeModule(context: WriteContext, fileName: string, code: string, origin: ModuleOrigin | undefined): Promise<void> {
    const { dir, sources, files } = context;
    const specifiers = findSpecifiers(code);
    let declared: Dependencies | undefined | null = null; // read when the module imports a package
    const replacements = new Map<number, string>();
    for (const specifier of specifiers) {
      const kind = kindOf(specifier.value);
      if (kind === "builtin" || kind === "sdk") continue;
      if (kind === "unsupported")
        throw invalid(`cannot import "${specifier.value}": only Node built-ins, npm packages and relative files can be imported`);
      if (kind === "relative") {
        const target = relativeTarget(specifier.value, origin, sources, options.allowPrivateEgress);
        let local = files.get(target.key);
        if (!local) {
          const resolved = await target.resolve();
          local = files.get(resolved.id);
          if (!local) {
            // Keys and ids may both name a file: count the files, not the names.
            if (new Set(files.values()).size >= MAX_FILES) throw invalid(`component imports more than ${MAX_FILES} files`);
            const extension = /\.json$/i.test(resolved.id.replace(/[?#].*$/, "")) ? ".json" : looksLikeEsm(resolved.code) ? ".mjs" : ".cjs";
            local = `f_${sha(resolved.id).slice(0, 16)}${extension}`;
            files.set(resolved.id, local);
            if (extension === ".json") await writeFile(join(dir, local), resolved.code);
            else await writeModule(context, local, resolved.code, resolved.origin);
          }
          files.set(target.key, local);
        }
        replacements.set(specifier.start, `./${local}`);
        continue;
      }
      const request = parsePackageSpecifier(specifier.value);
      if (!request) throw invalid(`"${specifier.value}" is not a valid npm package name`);
      if (declared === null) declared = await context.manifests.forModule(origin);
      await linkPackage(context, request, declared?.[request.name], specifier.viaRequire === true);
      if (request.version !== undefined) replacements.set(specifier.start, request.name + request.subpath);
    }
    const rewritten = rewriteSpecifiers(code, replacements, specifiers);
    await writeFile(join(dir, fileName), fileName.endsWith(".mjs") ? withRequire(rewritten) : rewritten);
  }

  /**
   * Links the version npm would choose for this import (declared-versions.ts): the declared
   * range, else the pinned version, else the newest; for a require() with neither, the newest
   * that require() can load. The first import of a name chooses; a later require() of a name an
   * import chose unpinned may still move it to a loadable major (import() loads CommonJS too).
   */
  async function linkPackage(context: WriteContext, request: PackageRequest, declared: string | undefined, viaRequire: boolean) {
    const { links, userId } = context;
    const install = (name: string, version: string | undefined) => options.npm.install(name, version, userId);
    let dir = links.get(request.name);
    if (!dir) {
      const version = declared ?? request.version;
      dir = await install(request.name, version);
      links.set(request.name, dir);
      if (version !== undefined) context.requireChecked.add(request.name); // chosen by a declaration or a pin: kept
    }
    if (viaRequire && !context.requireChecked.has(request.name)) {
      context.requireChecked.add(request.name);
      links.set(request.name, await requireLoadableInstall(request.name, request.subpath, dir, install));
    }
  }

  // Every execution asks for its code's folder: the SHA-256 of the code is remembered by the
  // code's text (the same string each time, from the cache of runnable sources).
  const hashes = new Map<string, Map<string, string>>();
  function codeHash(code: string, codeUrl: string): string {
    let byUrl = hashes.get(code);
    let hash = byUrl?.get(codeUrl);
    if (hash === undefined) {
      hash = sha(`${LAYOUT}\u0000${code}\u0000${codeUrl}`);
      if (hashes.size >= 1000) hashes.clear();
      if (!byUrl) hashes.set(code, (byUrl = new Map()));
      byUrl.set(codeUrl, hash);
    }
    return hash;
  }

  // The entry file of each package component, once its package is installed on this host.
  const packageEntries = new Map<string, Promise<Prepared>>();
  function packageEntry(entry: PackageEntry): Promise<Prepared> {
    const key = `${entry.name}@${entry.version}\u0000${entry.path}`;
    let promise = packageEntries.get(key);
    if (!promise) {
      promise = (async () => {
        const packageDir = await options.npm.install(entry.name, entry.version);
        const path = resolve(packageDir, entry.path);
        if (!path.startsWith(packageDir + sep)) throw invalid(`"${entry.path}" is not a file inside the package ${entry.name}`);
        if (!existsSync(path)) throw invalid(`the package ${entry.name}@${entry.version} has no file "${entry.path}"`);
        return { entry: path, packages: [packageDir] };
      })();
      packageEntries.set(key, promise);
      promise.catch(() => packageEntries.delete(key));
    }
    return promise;
  }

  return {
    accountDir: (userId) => join(options.dir, safeName(userId)),
    async prepare({ userId, code, codeUrl, files, package: entry }) {
      if (entry) {
        const found = await packageEntry(entry);
        if (options.npm.use(found.packages)) return found.entry;
        packageEntries.delete(`${entry.name}@${entry.version}\u0000${entry.path}`);
        return (await packageEntry(entry)).entry;
      }
      const hash = codeHash(code, (codeUrl ?? "") + filesDigest(files));
      const key = `${userId}/${hash}`;
      const make = (stale: boolean) => {
        const promise = build(userId, code, codeUrl, files, hash, stale);
        prepared.set(key, promise);
        promise.catch(() => prepared.delete(key));
        return promise;
      };
      const promise = prepared.get(key) ?? make(false);
      const found = await promise;
      if (options.npm.use(found.packages)) return found.entry;
      // A package it links was evicted from the cache: install it again and link it anew
      // (once: a concurrent execution may have started that already).
      const current = prepared.get(key);
      return (await (current && current !== promise ? current : make(true))).entry;
    },
  };
}

/** What writing one prepared folder's modules shares. */
interface WriteContext {
  userId: string;
  dir: string;
  sources: Map<string, string> | undefined;
  /** module id or import key → local file name */
  files: Map<string, string>;
  /** package name → installed folder */
  links: Map<string, string>;
  manifests: ReturnType<typeof createManifestFinder>;
  /** Packages whose version is settled for require() (declared, pinned, or checked). */
  requireChecked: Set<string>;
}

/** The package folders a prepared folder links (older folders have no list: their links say). */
async function linkedPackages(folder: string): Promise<string[]> {
  const listed = await readFile(join(folder, PACKAGES_FILE), "utf8").catch(() => undefined);
  if (listed !== undefined) return listed.split("\n").filter((line) => line !== "");
  const found: string[] = [];
  const nodeModules = join(folder, "node_modules");
  for (const name of await readdir(nodeModules).catch(() => [] as string[])) {
    const names = name.startsWith("@")
      ? (await readdir(join(nodeModules, name)).catch(() => [] as string[])).map((inner) => `${name}/${inner}`)
      : [name];
    for (const each of names) {
      const target = await readlink(join(nodeModules, each)).catch(() => undefined);
      if (target !== undefined) found.push(target);
    }
  }
  return found;
}

// A component's files are one object for as long as its component is cached (runnable-source.ts).
const digests = new WeakMap<object, string>();
function filesDigest(files: Record<string, string> | undefined): string {
  if (!files) return "";
  let digest = digests.get(files);
  if (digest === undefined) {
    digest = `\u0000${sha(JSON.stringify(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))}`;
    digests.set(files, digest);
  }
  return digest;
}

/**
 * ES modules that also call require() (common in component code) get a module-local require,
 * added on the first line so that line numbers in stack traces stay the same.
 */
function withRequire(code: string): string {
  if (!/\brequire\s*\(/.test(code) || /\b(?:const|let|var|function|import)\s+\{?\s*require\b|createRequire/.test(code)) return code;
  return `import { createRequire as __sluiceCreateRequire } from "node:module"; const require = __sluiceCreateRequire(import.meta.url); ${code}`;
}

/** `import { defineComponent } from "@sluice/sdk"` (or "@pipedream/types"): the identity helpers. */
async function writeSdk(nodeModules: string): Promise<void> {
  const cjs = "const id = (x) => x;\nmodule.exports = { defineComponent: id, defineSource: id, defineApp: id, defineAction: id };\n";
  const esm =
    "const id = (x) => x;\nexport const defineComponent = id, defineSource = id, defineApp = id, defineAction = id;\nexport default { defineComponent, defineSource, defineApp, defineAction };\n";
  for (const name of SDK_MODULES) {
    const dir = join(nodeModules, name);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name, version: "1.0.0", exports: { import: "./index.mjs", require: "./index.cjs" } }),
    );
    await writeFile(join(dir, "index.cjs"), cjs);
    await writeFile(join(dir, "index.mjs"), esm);
  }
}
