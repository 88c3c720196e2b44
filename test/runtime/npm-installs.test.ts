// The npm package cache (src/runtime/modules/npm-cache.ts) against a loopback registry: only
// registry tarballs enter it (refused specs are named, with npm's --allow-* settings and with
// an npm that lacks them, whose staged install is checked instead), installs are bounded in
// number (3 at once, 1 per account, a number per account and day), equivalent ranges share
// one entry, and the size cap evicts the least recently used entry but never a recent one.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createModuleStore } from "../../src/runtime/modules/module-store.js";
import { createNpmCache, npmCommand, runNpm, type NpmExec } from "../../src/runtime/modules/npm-cache.js";
import { ALLOW_NONE_ARGS, isRegistrySpec } from "../../src/runtime/modules/npm-install-policy.js";
import { startNpmRegistry, tarGz, type NpmRegistry } from "../helpers/npm-registry.js";
import { waitFor } from "../helpers/wait-for.js";

const hasGit = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** npm as if the --allow-* settings were lost (an .npmrc, or npm 10): the staged install is the check left. */
const withoutAllowSettings: NpmExec = (args) => runNpm(args.filter((arg) => !ALLOW_NONE_ARGS.includes(arg)));

/** Every file and folder name under `dir`, as paths relative to it. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("npm installs", () => {
  let registry: NpmRegistry;
  let work: string;
  let tarballServer: Server;
  const specs: Record<string, string> = {};
  // Packument requests being answered, per package: how many npm processes are resolving at once.
  let resolving = 0;
  let maxResolving = 0;
  const resolvingByAccount = new Map<string, number>();
  let maxResolvingOneAccount = 0;
  const accountOf = new Map<string, string>();

  before(async () => {
    registry = await startNpmRegistry({
      async beforePackument(name) {
        const account = accountOf.get(name);
        if (account === undefined) return;
        resolving++;
        maxResolving = Math.max(maxResolving, resolving);
        resolvingByAccount.set(account, (resolvingByAccount.get(account) ?? 0) + 1);
        maxResolvingOneAccount = Math.max(maxResolvingOneAccount, resolvingByAccount.get(account)!);
        await new Promise((resolve) => setTimeout(resolve, 150));
        resolving--;
        resolvingByAccount.set(account, resolvingByAccount.get(account)! - 1);
      },
    });
    work = mkdtempSync(join(tmpdir(), "sluice-npm-installs-"));
    // What a hostile package points at: a host tarball, a host folder, a host git repository, a loopback URL.
    const secret = tarGz({ "package.json": JSON.stringify({ name: "secret", version: "1.0.0" }), "secret.key": "host secret" });
    writeFileSync(join(work, "secret.tgz"), secret);
    mkdirSync(join(work, "secret-dir"));
    writeFileSync(join(work, "secret-dir", "package.json"), JSON.stringify({ name: "secret", version: "1.0.0" }));
    writeFileSync(join(work, "secret-dir", "secret.key"), "host secret");
    tarballServer = createServer((_request, response) => response.end(secret));
    await new Promise<void>((resolve) => tarballServer.listen(0, "127.0.0.1", resolve));
    specs.file = `file:${join(work, "secret.tgz")}`;
    specs.directory = `file:${join(work, "secret-dir")}`;
    specs.remote = `http://127.0.0.1:${(tarballServer.address() as AddressInfo).port}/secret.tgz`;
    if (hasGit) {
      const repo = join(work, "repo");
      mkdirSync(repo);
      writeFileSync(join(repo, "package.json"), JSON.stringify({ name: "secret", version: "1.0.0" }));
      const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
      git("init", "-q");
      git("add", ".");
      git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "x");
      specs.git = `git+file://${repo}`;
    }
    for (const [kind, spec] of Object.entries(specs)) {
      // Nested one level: the hostile spec is a dependency of a dependency.
      registry.publish({
        name: `hostile-${kind}`,
        version: "1.0.0",
        files: { "index.js": "" },
        dependencies: { "hostile-inner": `1.0.0-${kind}` },
      });
      registry.publish(
        { name: "hostile-inner", version: `1.0.0-${kind}`, files: { "index.js": "" }, dependencies: { secret: spec } },
        { latest: false },
      );
    }
  });
  after(async () => {
    tarballServer.close();
    await registry.close();
    rmSync(work, { recursive: true, force: true });
  });

  const newCache = (options: Parameters<typeof createNpmCache>[1] = {}) => {
    const dir = join(mkdtempSync(join(work, "data-")), "packages");
    return { dir, npm: createNpmCache(dir, { registry: registry.url, ...options }) };
  };

  it("runs its own npm 11 dependency, which knows the --allow-* settings, not the npm that came with Node", () => {
    const npm = npmCommand();
    assert.equal(npm.file, process.execPath);
    const cli = realpathSync(npm.prefix[0]!);
    assert.equal(cli, realpathSync(join("node_modules", "npm", "bin", "npm-cli.js")), "the project's own npm");
    const run = (...args: string[]) => execFileSync(npm.file, [...npm.prefix, ...args], { encoding: "utf8" }).trim();
    assert.ok(Number(run("--version").split(".")[0]) >= 11, "npm 11 or newer");
    const settings = run("config", "get", "allow-git", "allow-file", "allow-directory", "allow-remote", ...ALLOW_NONE_ARGS);
    assert.deepEqual(
      settings.split("\n").map((line) => line.trim()),
      ["allow-git=none", "allow-file=none", "allow-directory=none", "allow-remote=none"],
    );
  });

  it("reads only versions, ranges, tags and npm: aliases as registry specs", () => {
    for (const spec of ["1.2.3", "^1.2.0", "~1.2.3", "1.x", ">=1 <2 || 3", "*", "", "latest", "next", "npm:other@^1", "npm:@scope/x"])
      assert.equal(isRegistrySpec(spec), true, spec);
    for (const spec of [
      "file:../x",
      "git+file:///r",
      "http://127.0.0.1/x.tgz",
      "github:u/r",
      "u/r",
      "../dir",
      ".",
      "..",
      "x.tgz",
      "link:../x",
      "npm:x@file:../y",
    ])
      assert.equal(isRegistrySpec(spec), false, spec);
  });

  for (const [label, exec] of [
    ["npm with --allow-*=none", undefined],
    ["npm without the --allow-* settings (as npm 10): the staged install is checked", withoutAllowSettings],
  ] as const) {
    it(`refuses git, file, directory and remote dependencies, naming them, and caches nothing of them [${label}]`, async () => {
      const { dir, npm } = newCache(exec ? { exec } : {});
      for (const [kind, spec] of Object.entries(specs)) {
        await assert.rejects(npm.install(`hostile-${kind}`, undefined, "u_hostile"), (error: { code?: string; message: string }) => {
          assert.equal(error.code, "VALIDATION", error.message);
          assert.ok(error.message.includes(spec), `${kind}: ${error.message} names ${spec}`);
          assert.match(error.message, /only packages from the npm registry are installed/);
          return true;
        });
      }
      assert.deepEqual(
        tree(dir).filter((path) => !path.startsWith(".ranges")),
        [],
        "nothing entered the cache",
      );
      assert.deepEqual(tree(`${dir}-staging`), [], "nothing stays staged");
      if (!hasGit) console.log("# the git+file: case was skipped: git is not installed");
    });
  }

  it("runs at most 3 npm installs at once, and 1 per account", async () => {
    const { npm } = newCache();
    const names = Array.from({ length: 10 }, (_, i) => `concurrent-${i}`);
    names.forEach((name, i) => {
      registry.publish({ name, version: "1.0.0", files: { "index.js": `module.exports = ${i};\n` } });
      accountOf.set(name, `u_${i % 4}`);
    });
    maxResolving = 0;
    maxResolvingOneAccount = 0;
    let maxInstalling = 0;
    const watch = setInterval(() => (maxInstalling = Math.max(maxInstalling, npm.installing)), 5);
    try {
      await Promise.all(names.map((name) => npm.install(name, undefined, accountOf.get(name))));
    } finally {
      clearInterval(watch);
    }
    assert.ok(maxResolving <= 3, `npm processes resolving at once: ${maxResolving}`);
    assert.equal(maxResolvingOneAccount, 1, "one account's installs ran one at a time");
    assert.equal(maxInstalling, 3, "three ran at once (the bound was reached, not just respected)");
  });

  it("counts an account's installs per day, never a package found in the cache", async () => {
    const { npm } = newCache({ installsPerDay: 2 });
    for (const name of ["daily-a", "daily-b", "daily-c"]) registry.publish({ name, version: "1.0.0", files: { "index.js": "" } });
    await npm.install("daily-a", "1.0.0", "u_daily");
    await npm.install("daily-a", "1.0.0", "u_daily");
    await npm.install("daily-a", undefined, "u_other"); // resolves `latest`: another account's install
    await npm.install("daily-b", "^1.0.0", "u_daily");
    await assert.rejects(
      npm.install("daily-c", undefined, "u_daily"),
      (error: { code?: string; message: string }) => error.code === "LIMIT_EXCEEDED" && /SLUICE_NPM_INSTALLS_PER_DAY/.test(error.message),
    );
    await npm.install("daily-a", "1.0.0", "u_daily"); // cached: still fine
    await npm.install("daily-c", undefined, "u_other");
  });

  it("keeps npm's download cache per install and removes it, and clears what a stopped install left in staging", async () => {
    registry.publish({ name: "tidy", version: "1.0.0", files: { "index.js": "" } });
    const caches: string[] = [];
    const recording: NpmExec = (args) => {
      caches.push(...args.filter((arg) => arg.startsWith("--cache=")).map((arg) => arg.slice("--cache=".length)));
      return runNpm(args);
    };
    const { dir, npm } = newCache({ exec: recording });
    const staging = `${dir}-staging`;
    mkdirSync(join(staging, "install-left-by-a-crash", "node_modules"), { recursive: true });
    mkdirSync(join(staging, "install-running-elsewhere"), { recursive: true });
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(join(staging, "install-left-by-a-crash"), hourAgo, hourAgo);

    await npm.install("tidy", "1.0.0", "u_tidy");
    assert.equal(caches.length, 1);
    assert.ok(caches[0]!.startsWith(staging + "/"), `npm's cache ${caches[0]} is in the staging folder`);
    assert.equal(existsSync(caches[0]!), false, "and gone after the install");
    assert.deepEqual(readdirSync(staging), ["install-running-elsewhere"], "a recent folder may be another process's install");
  });

  it("installs equivalent ranges into one entry keyed by the exact version", async () => {
    const { dir, npm } = newCache();
    registry.publish({ name: "ranged", version: "1.2.3", files: { "index.js": "" } });
    registry.publish({ name: "ranged", version: "1.2.7", files: { "index.js": "" } });
    const dirs = new Set<string>();
    for (const range of ["^1.2.0", "~1.2.3", "1.x", undefined, "1.2.7"]) dirs.add(await npm.install("ranged", range, "u_ranged"));
    assert.deepEqual([...dirs], [join(dir, "ranged@1.2.7", "node_modules", "ranged")]);
    assert.deepEqual(
      readdirSync(dir).filter((name) => !name.startsWith(".")),
      ["ranged@1.2.7"],
    );
  });

  it("equivalent ranges asked for at once by many accounts end in one entry, with at most 3 npm processes", async () => {
    registry.publish({ name: "crowded", version: "2.0.1", files: { "index.js": "" } });
    registry.publish({ name: "crowded", version: "2.0.4", files: { "index.js": "" } });
    let running = 0;
    let maxRunning = 0;
    const counting: NpmExec = async (args) => {
      maxRunning = Math.max(maxRunning, ++running);
      try {
        await runNpm(args);
      } finally {
        running--;
      }
    };
    const { dir, npm } = newCache({ exec: counting });
    const ranges = ["^2.0.0", "~2.0.1", "2.x", "2", ">=2.0.0 <3", "^2.0.4", "2.0.x", "*", "latest", ">=2"];
    const dirs = await Promise.all(ranges.map((range, i) => npm.install("crowded", range, `u_crowd${i}`)));
    assert.deepEqual(new Set(dirs), new Set([join(dir, "crowded@2.0.4", "node_modules", "crowded")]));
    assert.deepEqual(
      readdirSync(dir).filter((name) => !name.startsWith(".")),
      ["crowded@2.0.4"],
    );
    assert.ok(maxRunning <= 3, `${maxRunning} npm processes ran at once`);
  });

  it("evicts the least recently used entry past the cap, and never one used recently", async () => {
    const big = "x".repeat(10_000);
    for (const name of ["lru-a", "lru-b", "lru-c", "lru-d"]) registry.publish({ name, version: "1.0.0", files: { "big.txt": big } });
    // Three entries (about 10.5 KB each) fit in 35,000 bytes; a fourth does not.
    const { dir, npm } = newCache({ maxBytes: 35_000, graceMs: 0 });
    const a = await npm.install("lru-a", "1.0.0");
    const b = await npm.install("lru-b", "1.0.0");
    await npm.install("lru-c", "1.0.0");
    assert.equal(npm.use([a]), true); // a is used again: b is now the least recently used
    await npm.install("lru-d", "1.0.0");
    await waitFor(() => !existsSync(b));
    assert.deepEqual(
      readdirSync(dir)
        .filter((name) => !name.startsWith("."))
        .sort(),
      ["lru-a@1.0.0", "lru-c@1.0.0", "lru-d@1.0.0"],
    );
    assert.equal(npm.use([b]), false, "the evicted entry is reported gone, so code linking it is prepared again");
    assert.equal(await npm.install("lru-b", "1.0.0"), b);

    // Entries used within the grace period stay whatever the cap: a runner may be using them.
    const recent = newCache({ maxBytes: 1, graceMs: 60 * 60_000 });
    const kept = await recent.npm.install("lru-a", "1.0.0");
    await recent.npm.install("lru-b", "1.0.0");
    await recent.npm.install("lru-c", "1.0.0");
    assert.ok(existsSync(kept));
    assert.equal(readdirSync(recent.dir).filter((name) => !name.startsWith(".")).length, 3);
  });
});

describe("prepared code and evicted packages", () => {
  it("prepares code again when a package it links has left the cache", async () => {
    const registry = await startNpmRegistry();
    const work = mkdtempSync(join(tmpdir(), "sluice-npm-evicted-"));
    try {
      registry.publish({ name: "kept-lib", version: "1.0.0", files: { "index.js": "module.exports = 'kept';\n" } });
      const npm = createNpmCache(join(work, "packages"), { registry: registry.url });
      const modules = createModuleStore({ dir: join(work, "modules"), npm, allowPrivateEgress: false });
      const input = { userId: "u_evicted", code: `const lib = require("kept-lib");\nmodule.exports = { run() { return lib; } };\n` };
      const entry = await modules.prepare(input);
      const linked = join(dirname(entry), "node_modules", "kept-lib", "index.js");
      assert.ok(existsSync(linked));
      rmSync(join(work, "packages", "kept-lib@1.0.0"), { recursive: true }); // as an eviction (here or in another process) leaves it
      assert.equal(existsSync(linked), false);
      assert.equal(await modules.prepare(input), entry);
      assert.ok(existsSync(linked), "installed and linked again");
    } finally {
      await registry.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});
