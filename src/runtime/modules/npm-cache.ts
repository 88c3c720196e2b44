// npm packages used by component code, installed on first use into a shared cache under the
// data folder, one folder per name@version (<dir>/<name with "/" as "+">@<version or
// "latest">/node_modules/<name>), and reused. Installation goes to a temporary folder renamed
// into place, so concurrent installs (in this or another process) are safe. Install scripts are
// never run: they would execute package code outside the sandbox.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { invalid } from "../../lib/errors.js";

export interface NpmCache {
  dir: string;
  /** The installed package's folder (…/node_modules/<name>); a VALIDATION error when it cannot be had. */
  install(name: string, version: string | undefined): Promise<string>;
  /**
   * Installs what `name@range` (the `latest` tag when no range) stands for today and answers
   * the exact version it resolved to, installed in that version's folder, so that it is what
   * every later install of the version finds.
   */
  installResolved(name: string, range: string | undefined): Promise<{ version: string; dir: string }>;
}

export interface NpmCacheOptions {
  /** The registry npm installs from (npm's --registry); npm's own configuration when unset. */
  registry?: string;
}

const INSTALL_TIMEOUT_MS = 120_000;
/** A version as npm publishes it: 1.2.3, with an optional pre-release and build. */
export const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function npmCommand(): { file: string; prefix: string[] } {
  const cli = join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");
  return existsSync(cli) ? { file: process.execPath, prefix: [cli] } : { file: "npm", prefix: [] };
}

/** What npm said went wrong, without its advice and log-file lines. */
export function npmReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.replace(/^npm (?:error|ERR!)\s?/, "").trim())
    .filter((line) => line !== "" && !/^\d{3}$/.test(line) && !/^A complete log of this run|^(?:\d{3} )?(?:Note that you can also install from a|tarball, folder, http url, or git url)/.test(line));
  return lines.slice(0, 3).join("; ");
}

export function createNpmCache(dir: string, options: NpmCacheOptions = {}): NpmCache {
  const inflight = new Map<string, Promise<unknown>>();
  const folderOf = (name: string, version: string | undefined) => join(dir, `${name.replace("/", "+")}@${version ?? "latest"}`);
  const installedIn = (folder: string, name: string) => join(folder, "node_modules", name);

  /** Runs npm install of `spec` into a new temporary folder and answers that folder. */
  async function npmInstall(spec: string, extra: string[]): Promise<string> {
    await mkdir(dir, { recursive: true });
    const temp = await mkdtemp(join(dir, ".install-"));
    try {
      await writeFile(join(temp, "package.json"), JSON.stringify({ private: true }));
      const npm = npmCommand();
      const args = [...npm.prefix, "install", spec, "--prefix", temp, "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", ...extra];
      if (options.registry) args.push(`--registry=${options.registry}`);
      await new Promise<void>((resolve, reject) => {
        execFile(npm.file, args, { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) => (error ? reject(new Error(npmReason(String(stderr)) || error.message)) : resolve()));
      });
      return temp;
    } catch (error) {
      await rm(temp, { recursive: true, force: true }).catch(() => {});
      throw error;
    }
  }

  /** Moves a finished install into its folder; someone else's install of the same version is as good. */
  async function settle(temp: string, final: string, name: string): Promise<string> {
    const packageDir = installedIn(final, name);
    try {
      if (!existsSync(join(packageDir, "package.json"))) await rename(temp, final);
    } catch (error) {
      if (!existsSync(join(packageDir, "package.json"))) throw error;
    } finally {
      await rm(temp, { recursive: true, force: true }).catch(() => {});
    }
    return packageDir;
  }

  async function installInto(name: string, version: string | undefined): Promise<string> {
    const final = folderOf(name, version);
    const packageDir = installedIn(final, name);
    if (existsSync(join(packageDir, "package.json"))) return packageDir;
    const spec = version ? `${name}@${version}` : name;
    try {
      const temp = await npmInstall(spec, []);
      if (!existsSync(join(installedIn(temp, name), "package.json"))) {
        await rm(temp, { recursive: true, force: true });
        throw new Error("npm did not install it");
      }
      return await settle(temp, final, name);
    } catch (error) {
      throw invalid(`npm package "${spec}" could not be installed: ${(error as Error).message}`);
    }
  }

  async function installResolvedInto(name: string, range: string | undefined): Promise<{ version: string; dir: string }> {
    const spec = `${name}@${range ?? "latest"}`;
    let temp: string;
    try {
      // --prefer-online: what `latest` means now, not what npm's HTTP cache remembers.
      temp = await npmInstall(spec, ["--prefer-online"]);
    } catch (error) {
      throw invalid(`npm package "${spec}" could not be installed: ${(error as Error).message}`);
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
    return { version, dir: await settle(temp, folderOf(name, version), name) };
  }

  /** One install at a time per key in this process. */
  function once<T>(key: string, run: () => Promise<T>): Promise<T> {
    let promise = inflight.get(key) as Promise<T> | undefined;
    if (!promise) {
      promise = run().finally(() => inflight.delete(key));
      inflight.set(key, promise);
    }
    return promise;
  }

  return {
    dir,
    install: (name, version) => once(`${name}@${version ?? ""}`, () => installInto(name, version)),
    installResolved: (name, range) => once(`resolve:${name}@${range ?? ""}`, () => installResolvedInto(name, range)),
  };
}
