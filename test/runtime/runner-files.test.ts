// What a runner can reach of the host's files beside its own: no link planted in the package
// cache leads it out (with or without the OS sandbox), a root service's runners without the
// sandbox are an unprivileged user the data directory's own files are closed to, and inside the
// sandbox the runner sees neutral /sluice paths instead of the host's layout.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { createComponentRunner, type ComponentRunner } from "../../src/runtime/component-runner.js";
import type { ExecuteResult } from "../../src/runtime/code-runner.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";
import { SANDBOX_MODES } from "../helpers/sandbox-modes.js";

const SECRET = "the fake secret key";

/** A package in the cache as npm leaves it (<cache>/<name>@<version>/node_modules/<name>), offline. */
function plantPackage(dataDir: string, name: string, version: string, leakTo?: string): string {
  const dir = join(dataDir, "runtime", "packages", `${name}@${version}`, "node_modules", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version, main: "index.js" }));
  writeFileSync(join(dir, "index.js"), `module.exports = ${JSON.stringify(`${name} loaded`)};`);
  if (leakTo) symlinkSync(leakTo, join(dir, "leak"));
  return dir;
}

/** Emits what the body returns, or the error code it threw. */
const attempt = (body: string) =>
  `module.exports = { async run() { try { this.$emit(await (async () => { ${body} })()); } catch (e) { this.$emit("ERR:" + String(e && (e.code || e.message))); } } };`;

for (const { mode, skip } of SANDBOX_MODES) {
  describe(`a runner's view of the host's files [sandbox ${mode}]`, { skip }, () => {
    let dataDir: string;
    let runner: ComponentRunner;
    const run = (code: string, userId = "u_files"): Promise<ExecuteResult> =>
      runner.execute({ userId, code, entry: "run", event: {}, props: {}, state: {}, context: { sourceId: "dc_files" }, timeoutMs: 10_000 });
    /** The package cache's path as the runner knows it. */
    const cache = () => (mode === "bwrap" ? "/sluice/runtime/packages" : join(dataDir, "runtime", "packages"));

    before(() => {
      dataDir = mkdtempSync(join(tmpdir(), "sluice-runner-files-"));
      writeFileSync(join(dataDir, "secret.key"), SECRET, { mode: 0o600 });
      // As the database is made by default: readable by others.
      writeFileSync(join(dataDir, "sluice.db"), "database", { mode: 0o644 });
      chmodSync(join(dataDir, "sluice.db"), 0o644);
      plantPackage(dataDir, "planted-before", "1.0.0", join(dataDir, "secret.key"));
      plantPackage(dataDir, "clean", "1.0.0");
      runner = createComponentRunner(testRunnerSettings(dataDir, { runTimeoutSeconds: 10 }, mode));
    });
    after(async () => {
      await runner.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("a package folder in the cache holding a link out of it is removed at start; user code cannot read through it", async () => {
      assert.deepEqual(runner.warnings, ["removed from the package cache, holding links that lead out of it: planted-before@1.0.0"]);
      const read = await run(
        attempt(
          `return require("fs").readFileSync(${JSON.stringify(`${cache()}/planted-before@1.0.0/node_modules/planted-before/leak`)}, "utf8");`,
        ),
      );
      assert.equal(read.error, undefined);
      assert.notEqual(read.emits[0]?.event, SECRET);
      assert.match(String(read.emits[0]?.event), /^ERR:/);
    });

    it("a package holding a link out of the cache that appears later is refused at its first use, naming the link", async () => {
      plantPackage(dataDir, "planted-after", "1.0.0", join(dataDir, "secret.key"));
      const used = await run(`const leak = require("planted-after@1.0.0"); module.exports = { run() { this.$emit(leak); } };`);
      assert.equal(used.emits.length, 0);
      assert.equal(used.error?.name, "ModuleError", JSON.stringify(used.error));
      assert.match(
        used.error!.message,
        /planted-after@1\.0\.0 holds a link that leads out of the package cache \(node_modules\/planted-after\/leak\)/,
      );
      const clean = await run(`const value = require("clean@1.0.0"); module.exports = { run() { this.$emit(value); } };`);
      assert.deepEqual(
        clean.emits.map((e) => e.event),
        ["clean loaded"],
        JSON.stringify(clean.error),
      );
    });

    it("the data directory's own files stay closed to user code; emits, logs and /tmp work as ever", async () => {
      const result = await run(`module.exports = { async run() {
        const fs = require("fs"), seen = {};
        for (const name of ["secret.key", "sluice.db"]) {
          try { seen[name] = fs.readFileSync(${JSON.stringify(dataDir)} + "/" + name, "utf8"); } catch (e) { seen[name] = "ERR:" + e.code; }
        }
        const tmp = require("path").join(require("os").tmpdir(), "x");
        fs.writeFileSync(tmp, "tmp works");
        console.log("logged");
        this.$emit({ seen, tmp: fs.readFileSync(tmp, "utf8"), uid: process.getuid(), gid: process.getgid() });
      } };`);
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      const seen = result.emits[0]?.event as { seen: Record<string, string>; tmp: string; uid: number; gid: number };
      for (const name of ["secret.key", "sluice.db"]) assert.match(seen.seen[name]!, /^ERR:/, name);
      assert.equal(seen.tmp, "tmp works");
      assert.deepEqual(
        result.logs.map((l) => l.message),
        ["logged"],
      );
      if (process.getuid?.() === 0) {
        assert.deepEqual([seen.uid, seen.gid], [65534, 65534], "a root service's runner is not root");
        if (mode === "none")
          assert.equal(statSync(join(dataDir, "sluice.db")).mode & 0o007, 0, "the database is closed to the runners' user");
      }
    });

    it("the host's layout is not visible: the data directory's path is not there in the sandbox, module paths are neutral", async () => {
      const result = await run(
        attempt(`
        const fs = require("fs");
        let data; try { fs.readdirSync(${JSON.stringify(dataDir)}); data = "LISTED"; } catch (e) { data = e.code; }
        let root; try { root = fs.readdirSync("/sluice"); } catch (e) { root = e.code; }
        require("clean@1.0.0");
        return { data, root, file: __filename, node: process.execPath, pkg: require.resolve("clean") };`),
      );
      assert.equal(typeof result.emits[0]?.event, "object", JSON.stringify(result.emits));
      const seen = result.emits[0]?.event as { data: string; root: string[] | string; file: string; node: string; pkg: string };
      if (mode === "bwrap") {
        assert.equal(seen.data, "ENOENT");
        // Not granted to list; what it holds shows in the paths below.
        assert.ok(
          seen.root === "ERR_ACCESS_DENIED" || JSON.stringify(seen.root) === JSON.stringify(["app", "bin", "egress", "runtime"]),
          JSON.stringify(seen.root),
        );
        assert.match(seen.file, /^\/sluice\/runtime\/modules\/u_files\/[0-9a-f]{64}\/component\.cjs$/);
        assert.equal(seen.node, "/sluice/bin/node");
        assert.equal(seen.pkg, "/sluice/runtime/packages/clean@1.0.0/node_modules/clean/index.js");
      } else {
        assert.equal(seen.data, "ERR_ACCESS_DENIED");
        assert.ok(seen.file.startsWith(join(dataDir, "runtime", "modules", "u_files")), seen.file);
      }
      const failed = await run(`module.exports = { run() { throw new Error("where am I"); } };`);
      assert.doesNotMatch(failed.error!.stack, new RegExp(dataDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    });

    it("of Sluice's own code, only the runner's is there: the service side of the runtime cannot be read", async () => {
      // The compiled service-side runtime next to this test's build, and the same file below the
      // app folder the runner was started from (its entry is process.argv[1]: /sluice/app/src/…
      // in the sandbox, the unprivileged user's copy or the build itself without it).
      const hostFile = fileURLToPath(new URL("../../src/runtime/component-runner.js", import.meta.url));
      const result = await run(
        attempt(`
        const fs = require("fs"), entry = process.argv[1];
        const appFile = entry.slice(0, entry.lastIndexOf("/src/")) + "/src/runtime/component-runner.js";
        const read = (path) => { try { fs.readFileSync(path); return "READ"; } catch (e) { return e.code; } };
        return { entry: read(entry), app: read(appFile), host: read(${JSON.stringify(hostFile)}) };`),
      );
      const seen = result.emits[0]?.event as { entry: string; app: string; host: string };
      assert.equal(typeof seen, "object", JSON.stringify(result.emits));
      assert.equal(seen.entry, "READ", "the runner's own entry is readable (the paths above are right)");
      // Not granted (the permission model refuses) or not there at all (not bound, not copied).
      const hidden = ["ERR_ACCESS_DENIED", "ENOENT"];
      assert.ok(hidden.includes(seen.app), `the app folder's service side: ${seen.app}`);
      assert.ok(hidden.includes(seen.host), `the build's service side: ${seen.host}`);
    });

    it("a runner has a home and a user: os.homedir() is a folder it may write, os.userInfo() names it (the AWS SDK calls both)", async () => {
      const result = await run(
        attempt(`
          const os = require("os"), fs = require("fs"), path = require("path");
          const home = os.homedir();
          fs.mkdirSync(path.join(home, ".aws"), { recursive: true });
          fs.writeFileSync(path.join(home, ".aws", "config"), "[default]");
          const info = os.userInfo();
          return { home, tmp: os.tmpdir(), read: fs.readFileSync(path.join(home, ".aws", "config"), "utf8"), user: info.username, uid: info.uid, infoHome: info.homedir };
        `),
      );
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      const seen = result.emits[0]?.event as any;
      assert.equal(typeof seen, "object", `the component failed: ${JSON.stringify(seen)}`);
      assert.equal(seen.read, "[default]");
      assert.equal(seen.home, seen.tmp, "the home is the runner's own temp folder");
      assert.ok(seen.user.length > 0 && Number.isInteger(seen.uid));
      if (mode === "bwrap") {
        assert.equal(seen.home, "/tmp");
        assert.equal(seen.user, "sluice");
        assert.equal(seen.infoHome, "/tmp", "its passwd entry's home is its /tmp too");
      }
    });
  });
}
