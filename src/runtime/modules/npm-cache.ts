// npm packages used by component code, installed on first use into a shared cache under the
// data folder, one folder per name@version, and reused. Installation goes to a temporary
// folder renamed into place, so concurrent installs (in this or another process) are safe.
// Install scripts are never run: they would execute package code outside the sandbox.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { invalid } from "../../lib/errors.js";

export interface NpmCache {
  dir: string;
  /** The installed package's folder (…/node_modules/<name>); a VALIDATION error when it cannot be had. */
  install(name: string, version: string | undefined): Promise<string>;
}

const INSTALL_TIMEOUT_MS = 120_000;

function npmCommand(): { file: string; prefix: string[] } {
  const cli = join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");
  return existsSync(cli) ? { file: process.execPath, prefix: [cli] } : { file: "npm", prefix: [] };
}

export function createNpmCache(dir: string): NpmCache {
  const inflight = new Map<string, Promise<string>>();
  const folderOf = (name: string, version: string | undefined) => join(dir, `${name.replace("/", "+")}@${version ?? "latest"}`);

  async function installInto(name: string, version: string | undefined): Promise<string> {
    const final = folderOf(name, version);
    const packageDir = join(final, "node_modules", name);
    if (existsSync(join(packageDir, "package.json"))) return packageDir;
    await mkdir(dir, { recursive: true });
    const temp = await mkdtemp(join(dir, ".install-"));
    const spec = version ? `${name}@${version}` : name;
    try {
      await writeFile(join(temp, "package.json"), JSON.stringify({ private: true }));
      const npm = npmCommand();
      const args = [...npm.prefix, "install", spec, "--prefix", temp, "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error"];
      await new Promise<void>((resolve, reject) => {
        execFile(npm.file, args, { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) => (error ? reject(new Error(String(stderr).trim().split("\n").slice(-3).join(" ") || error.message)) : resolve()));
      });
      if (!existsSync(join(temp, "node_modules", name, "package.json"))) throw new Error("npm did not install it");
      try {
        await rename(temp, final);
      } catch (error) {
        // Someone else installed the same version meanwhile: theirs is as good as ours.
        if (!existsSync(join(packageDir, "package.json"))) throw error;
      }
      return packageDir;
    } catch (error) {
      throw invalid(`npm package "${spec}" could not be installed: ${(error as Error).message}`);
    } finally {
      await rm(temp, { recursive: true, force: true }).catch(() => {});
    }
  }

  return {
    dir,
    install(name, version) {
      const key = `${name}@${version ?? ""}`;
      let promise = inflight.get(key);
      if (!promise) {
        promise = installInto(name, version).finally(() => inflight.delete(key));
        inflight.set(key, promise);
      }
      return promise;
    },
  };
}
