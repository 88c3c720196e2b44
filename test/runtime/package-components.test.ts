// Components of registry packages run from the installed package in the npm cache
// (<cache>/<name>@<version>/node_modules/<name>), not from a prepared copy: their relative
// imports and npm dependencies resolve as inside the package, with and without the OS
// sandbox. The cache is seeded here as npm would have left it, so no npm runs.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createComponentRunner, type ComponentRunner } from "../../src/runtime/component-runner.js";
import type { PackageEntry } from "../../src/runtime/code-runner.js";
import { npmReason } from "../../src/runtime/modules/npm-cache.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";
import { SANDBOX_MODES } from "../helpers/sandbox-modes.js";

const NAME = "@sluice-test/seeded";

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** The folder npm install leaves: the package and its dependency side by side in node_modules. */
function seedCache(dataDir: string): void {
  const installed = join(dataDir, "runtime", "packages", `${NAME.replace("/", "+")}@1.0.0`);
  write(installed, {
    "package.json": JSON.stringify({ private: true }),
    [`node_modules/${NAME}/package.json`]: JSON.stringify({ name: NAME, version: "1.0.0", dependencies: { "seeded-dep": "^1.0.0" } }),
    [`node_modules/${NAME}/seeded.app.mjs`]: `export default { type: "app", app: "seeded", methods: { twice(n) { return n * 2; } } };\n`,
    [`node_modules/${NAME}/sources/common/base.mjs`]: `export const origin = "common";\n`,
    [`node_modules/${NAME}/sources/count/count.mjs`]: `import seeded from "../../seeded.app.mjs";
import { origin } from "../common/base.mjs";
import dep from "seeded-dep";
export default {
  key: "seeded-count",
  name: "Seeded Count",
  version: "1.0.0",
  props: { seeded, db: "$.service.db" },
  async run(event) {
    const count = (this.db.get("count") ?? 0) + 1;
    this.db.set("count", count);
    this.$emit({ doubled: this.seeded.twice(event.n), origin, dep: dep.tag, count });
  },
};
`,
    "node_modules/seeded-dep/package.json": JSON.stringify({ name: "seeded-dep", version: "1.2.0", main: "index.js" }),
    "node_modules/seeded-dep/index.js": `exports.tag = "seeded-dep@1.2.0";\n`,
  });
}

const ENTRY: PackageEntry = { name: NAME, version: "1.0.0", path: "sources/count/count.mjs" };

for (const mode of SANDBOX_MODES) {
  describe(`components of registry packages [sandbox ${mode.mode}]`, { skip: mode.skip }, () => {
    let dataDir: string;
    let runner: ComponentRunner;
    before(() => {
      dataDir = mkdtempSync(join(tmpdir(), "sluice-package-components-"));
      seedCache(dataDir);
      runner = createComponentRunner(testRunnerSettings(dataDir, {}, mode.mode));
    });
    after(async () => {
      await runner.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const run = (entry: PackageEntry, state: Record<string, unknown> = {}) =>
      runner.execute({
        userId: "u_package",
        code: "",
        package: entry,
        entry: "run",
        event: { n: 21 },
        props: {},
        state,
        context: { sourceId: "dc_package" },
      });

    it("inspects the component from the installed package, whatever code text comes with it", async () => {
      const metadata = await runner.inspectComponent({ userId: "u_package", code: "not even javascript", package: ENTRY });
      assert.equal(metadata.key, "seeded-count");
      assert.deepEqual(
        metadata.configurable_props.map((prop) => prop.name),
        ["seeded", "db"],
      );
    });

    it("runs it with its app file, its ../common/ import and its npm dependency", async () => {
      const first = await run(ENTRY);
      assert.equal(first.error, undefined, JSON.stringify(first.error));
      assert.deepEqual(
        first.emits.map((emit) => emit.event),
        [{ doubled: 42, origin: "common", dep: "seeded-dep@1.2.0", count: 1 }],
      );
      const second = await run(ENTRY, first.state);
      assert.deepEqual(
        second.emits.map((emit) => emit.event),
        [{ doubled: 42, origin: "common", dep: "seeded-dep@1.2.0", count: 2 }],
      );
    });

    it("a path out of the package or to no file is a module error, not a crash", async () => {
      const outside = await run({ ...ENTRY, path: "../../../../escape.mjs" });
      assert.equal(outside.error?.name, "ModuleError");
      assert.match(outside.error!.message, /not a file inside the package/);
      const missing = await run({ ...ENTRY, path: "sources/gone/gone.mjs" });
      assert.equal(missing.error?.name, "ModuleError");
      assert.match(missing.error!.message, /has no file "sources\/gone\/gone\.mjs"/);
    });
  });
}

describe("npm's reason for a failed install", () => {
  it("keeps what went wrong and drops npm's advice and log-file lines", () => {
    const stderr = [
      "npm error code E404",
      "npm error 404 Not Found - GET http://127.0.0.1:4873/@x%2fnope - Not found",
      "npm error 404",
      "npm error 404  The requested resource '@x/nope@*' could not be found or you do not have permission to access it.",
      "npm error 404",
      "npm error 404 Note that you can also install from a",
      "npm error 404 tarball, folder, http url, or git url.",
      "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log",
      "",
    ].join("\n");
    assert.equal(
      npmReason(stderr),
      "code E404; 404 Not Found - GET http://127.0.0.1:4873/@x%2fnope - Not found; 404  The requested resource '@x/nope@*' could not be found or you do not have permission to access it.",
    );
  });
});
