// npm packages used by component code, installed on first use into a shared cache under the
// data folder, one entry per name and exact version (<dir>/<name with "/" as "+">@<version>/
// node_modules/<name>), and reused. A range or tag (`^1.2.0`, `latest`) is resolved by
// installing it once; what it resolved to is remembered under <dir>/.ranges, so that
// equivalent ranges share one entry. Installs are staged in a folder beside the cache (which
// runners may read), checked to hold registry packages only (npm-install-policy.ts), then
// renamed into place, so concurrent installs (in this or another process) are safe. Install
// scripts are never run: they would execute package code outside the sandbox. How many npm
// processes run at once and per account is bounded (install-slots.ts), and the cache's size
// (package-cache-lru.ts).
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { ServiceError, invalid } from "../../lib/errors.js";
import { createInstallSlots, type InstallSlotsOptions } from "./install-slots.js";
import { ALLOW_NONE_ARGS, allowRefusal, folderBytes, refusedSpecInLog, stagedInstallProblem } from "./npm-install-policy.js";
import { BYTES_FILE, createPackageCacheLru } from "./package-cache-lru.js";

export interface NpmCache {
  dir: string;
  /**
   * The installed package's folder (…/node_modules/<name>) for `version` (exact, a range or a
   * tag; `latest` when undefined); a VALIDATION error when it cannot be had. `account` is who
   * needs it (undefined: the operator, for registry packages), for the limits on installs.
   */
  install(name: string, version: string | undefined, account?: string): Promise<string>;
  /**
   * Installs what `name@range` (the `latest` tag when no range) stands for today and answers
   * the exact version it resolved to, installed in that version's folder, so that it is what
   * every later install of the version finds.
   */
  installResolved(name: string, range: string | undefined, account?: string): Promise<{ version: string; dir: string }>;
  /**
   * Marks the entries holding these installed package folders as used now (they stay through
   * eviction while recently used); false when one of them is no longer in the cache.
   */
  use(packageDirs: readonly string[]): boolean;
  /** npm processes this cache runs now. */
  readonly installing: number;
}

/** Runs npm with these arguments; rejects with `{ stderr }` when it fails. */
export type NpmExec = (args: string[]) => Promise<void>;

export interface NpmCacheOptions {
  /** The registry npm installs from (npm's --registry); npm's own configuration when unset. */
  registry?: string;
  /** The cache's size cap in bytes (SLUICE_PACKAGE_CACHE_MB); least recently used entries go past it. */
  maxBytes?: number;
  /** npm installs one account may start per UTC day (SLUICE_NPM_INSTALLS_PER_DAY). */
  installsPerDay?: number;
  /** How long an entry stays after its last use whatever the cap: longer than any run. */
  graceMs?: number;
  slots?: Partial<InstallSlotsOptions>;
  /** Tests: runs npm (e.g. counting processes); npmCommand() by default. */
  exec?: NpmExec;
  now?: () => number;
}

const INSTALL_TIMEOUT_MS = 120_000;
export const DEFAULT_CACHE_BYTES = 2048 * 1024 * 1024;
export const DEFAULT_INSTALLS_PER_DAY = 100;
/** A version as npm publishes it: 1.2.3, with an optional pre-release and build. */
export const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * The npm this service runs: its own dependency, run by this Node. Not the npm beside Node:
 * Node 20 ships npm 10, which lacks the --allow-* settings and would fetch a dependency's
 * loopback URL or copy a host path before the staged install could be checked.
 */
export function npmCommand(): { file: string; prefix: string[] } {
  const root = dirname(createRequire(import.meta.url).resolve("npm/package.json"));
  return { file: process.execPath, prefix: [join(root, "bin", "npm-cli.js")] };
}

/** Runs npm (npmCommand). */
export const runNpm: NpmExec = (args) => {
  const npm = npmCommand();
  return new Promise<void>((resolve, reject) => {
    execFile(npm.file, [...npm.prefix, ...args], { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { stdout: String(stdout), stderr: String(stderr) })) : resolve(),
    );
  });
};

/** What npm said went wrong, without its advice and log-file lines. */
export function npmReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.replace(/^npm (?:error|ERR!)\s?/, "").trim())
    .filter(
      (line) =>
        line !== "" &&
        !/^\d{3}$/.test(line) &&
        !/^A complete log of this run|^(?:\d{3} )?(?:Note that you can also install from a|tarball, folder, http url, or git url)/.test(
          line,
        ),
    );
  return lines.slice(0, 3).join("; ");
}

/**
 * Removes what a process that stopped mid-install left in the staging folder (installs, npm's
 * download caches, evicted entries): anything older than an install may take, so never the
 * folder of an install running now in this or another process.
 */
async function sweepStaging(staging: string, now: number): Promise<void> {
  const names = await readdir(staging).catch(() => [] as string[]);
  for (const name of names) {
    const path = join(staging, name);
    const stale = await stat(path).then(
      (info) => now - info.mtimeMs > 2 * INSTALL_TIMEOUT_MS,
      () => false,
    );
    if (stale) await rm(path, { recursive: true, force: true }).catch(() => {});
  }
}

/** The cache entry (folder name) of name@version. */
export const entryName = (name: string, version: string) => `${name.replace("/", "+")}@${version}`;
/** Where the exact version a range or tag of `name` resolved to is remembered. */
export const rangeAliasPath = (dir: string, name: string, range: string) =>
  join(dir, ".ranges", createHash("sha256").update(`${name}@${range}`).digest("hex").slice(0, 32));

export function createNpmCache(dir: string, options: NpmCacheOptions = {}): NpmCache {
  const inflight = new Map<string, { account: string | undefined; promise: Promise<unknown> }>();
  const staging = `${dir}-staging`;
  const exec = options.exec ?? runNpm;
  const installedIn = (folder: string, name: string) => join(folder, "node_modules", name);
  const slots = createInstallSlots({
    total: 3,
    perAccount: 1,
    perDay: options.installsPerDay ?? DEFAULT_INSTALLS_PER_DAY,
    maxWaitingPerAccount: 8,
    waitMs: 5 * 60_000,
    now: options.now,
    ...options.slots,
  });
  const lru = createPackageCacheLru({
    dir,
    trashDir: staging,
    maxBytes: options.maxBytes ?? DEFAULT_CACHE_BYTES,
    graceMs: options.graceMs ?? 15 * 60_000,
    now: options.now,
  });
  let sweptStaging: Promise<void> | undefined;

  const refused = (spec: string, what: string) =>
    invalid(`npm package "${spec}" was refused: ${what}; only packages from the npm registry are installed`);

  /** Runs npm install of `spec` into a new staging folder, checks what it holds, and answers that folder. */
  async function npmInstall(spec: string, account: string | undefined): Promise<string> {
    return slots.run(account, async () => {
      await mkdir(staging, { recursive: true });
      // File times are the real clock's, whatever clock the cache is given.
      await (sweptStaging ??= sweepStaging(staging, Date.now()));
      const temp = await mkdtemp(join(staging, "install-"));
      // npm's own download cache, per install and removed with it: the shared one (~/.npm)
      // would grow with every tenant's packages, counted and capped by nothing.
      const npmCache = `${temp}-npm-cache`;
      try {
        await writeFile(join(temp, "package.json"), JSON.stringify({ private: true }));
        const args = [
          "install",
          spec,
          "--prefix",
          temp,
          "--ignore-scripts",
          "--no-audit",
          "--no-fund",
          "--no-package-lock",
          `--cache=${npmCache}`,
          ...ALLOW_NONE_ARGS,
        ];
        if (options.registry) args.push(`--registry=${options.registry}`);
        try {
          await exec([...args, "--loglevel=error"]);
        } catch (error) {
          const stderr = String((error as { stderr?: unknown }).stderr ?? "");
          const code = allowRefusal(stderr);
          if (!code) throw new Error(npmReason(stderr) || (error as Error).message);
          // npm names only the kind it refused; its silly log names the dependency. It refuses
          // again before fetching anything, so asking twice costs only the registry's metadata.
          const log = await exec([...args, "--loglevel=silly"]).then(
            () => "",
            (again: { stderr?: unknown }) => String(again.stderr ?? ""),
          );
          throw refused(spec, refusedSpecInLog(log) ?? `it needs a package npm refuses (${code})`);
        }
        const problem = await stagedInstallProblem(temp);
        if (problem) throw refused(spec, problem);
        return temp;
      } catch (error) {
        await rm(temp, { recursive: true, force: true }).catch(() => {});
        throw error;
      } finally {
        await rm(npmCache, { recursive: true, force: true }).catch(() => {});
      }
    });
  }

  /** Moves a checked install into its entry; someone else's install of the same version is as good. */
  async function settle(temp: string, name: string, version: string): Promise<string> {
    const entry = entryName(name, version);
    const final = join(dir, entry);
    const packageDir = installedIn(final, name);
    try {
      if (!existsSync(join(packageDir, "package.json"))) {
        const bytes = await folderBytes(temp);
        await writeFile(join(temp, BYTES_FILE), String(bytes));
        await mkdir(dir, { recursive: true });
        await rename(temp, final);
        lru.added(entry, bytes);
        lru.trim().catch(() => {});
      }
    } catch (error) {
      if (!existsSync(join(packageDir, "package.json"))) throw error;
    } finally {
      await rm(temp, { recursive: true, force: true }).catch(() => {});
    }
    lru.used(entry);
    return packageDir;
  }

  const failed = (spec: string, error: unknown) =>
    error instanceof ServiceError ? error : invalid(`npm package "${spec}" could not be installed: ${(error as Error).message}`);

  async function installExact(name: string, version: string, account: string | undefined): Promise<string> {
    const packageDir = installedIn(join(dir, entryName(name, version)), name);
    if (existsSync(join(packageDir, "package.json"))) {
      lru.used(entryName(name, version));
      return packageDir;
    }
    const spec = `${name}@${version}`;
    try {
      const temp = await npmInstall(spec, account);
      if (!existsSync(join(installedIn(temp, name), "package.json"))) {
        await rm(temp, { recursive: true, force: true });
        throw new Error("npm did not install it");
      }
      return await settle(temp, name, version);
    } catch (error) {
      throw failed(spec, error);
    }
  }

  async function installResolvedInto(
    name: string,
    range: string | undefined,
    account: string | undefined,
  ): Promise<{ version: string; dir: string }> {
    const spec = `${name}@${range ?? "latest"}`;
    let temp: string;
    try {
      // npm's download cache is new for every install, so `latest` is what the registry says now.
      temp = await npmInstall(spec, account);
    } catch (error) {
      throw failed(spec, error);
    }
    let version: unknown;
    try {
      version = (JSON.parse(await readFile(join(installedIn(temp, name), "package.json"), "utf8")) as { version?: unknown }).version;
    } catch {
      version = undefined;
    }
    if (typeof version !== "string" || !EXACT_VERSION.test(version)) {
      await rm(temp, { recursive: true, force: true }).catch(() => {});
      throw invalid(`npm package "${spec}" could not be installed: its package.json has no valid version`);
    }
    const packageDir = await settle(temp, name, version);
    await remember(name, range ?? "latest", version);
    return { version, dir: packageDir };
  }

  async function remember(name: string, range: string, version: string): Promise<void> {
    const path = rangeAliasPath(dir, name, range);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    await writeFile(temp, JSON.stringify({ name, range, version }));
    await rename(temp, path);
  }

  /** A range or tag: the version it resolved to before, while that is still in the cache; else resolved now. */
  async function installRange(name: string, range: string, account: string | undefined): Promise<string> {
    try {
      const { version } = JSON.parse(await readFile(rangeAliasPath(dir, name, range), "utf8")) as { version?: unknown };
      if (typeof version === "string" && EXACT_VERSION.test(version)) {
        const packageDir = installedIn(join(dir, entryName(name, version)), name);
        if (existsSync(join(packageDir, "package.json"))) {
          lru.used(entryName(name, version));
          return packageDir;
        }
      }
    } catch {
      // Not resolved before (or the record is unreadable): resolve it now.
    }
    return (await installResolvedInto(name, range, account)).dir;
  }

  /**
   * One install at a time per key in this process, shared by whoever asks meanwhile. A limit
   * of the account that started it is not the joiner's: the joiner then tries on its own.
   */
  function once<T>(key: string, account: string | undefined, run: () => Promise<T>): Promise<T> {
    const running = inflight.get(key);
    if (running) {
      const promise = running.promise as Promise<T>;
      if (running.account === account) return promise;
      return promise.catch((error: unknown) => {
        if (error instanceof ServiceError && error.code === "LIMIT_EXCEEDED") return once(key, account, run);
        throw error;
      });
    }
    const promise = run().finally(() => inflight.delete(key));
    inflight.set(key, { account, promise });
    return promise;
  }

  return {
    dir,
    get installing() {
      return slots.running;
    },
    install: (name, version, account) =>
      version !== undefined && EXACT_VERSION.test(version)
        ? once(`${name}@${version}`, account, () => installExact(name, version, account))
        : once(`range:${name}@${version ?? "latest"}`, account, () => installRange(name, version ?? "latest", account)),
    installResolved: (name, range, account) =>
      once(`resolve:${name}@${range ?? ""}`, account, () => installResolvedInto(name, range, account)),
    use(packageDirs) {
      let present = true;
      for (const packageDir of packageDirs) {
        const entry = relative(dir, packageDir).split(sep)[0]!;
        if (existsSync(packageDir)) lru.used(entry);
        else present = false;
      }
      return present;
    },
  };
}
