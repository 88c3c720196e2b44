// What names a registry package (pure): npm names with an optional version, range or tag, and
// nothing npm would read as a flag, URL, git or file spec, or alias.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { packageRequest, parsePackageRequest } from "../../src/domain/registry/package-request.js";
import { packageSourceFiles } from "../../src/domain/registry/package-sources.js";

const refused = (run: () => unknown) => assert.throws(run, (error: any) => error.code === "VALIDATION");

describe("registry package requests", () => {
  it("takes npm names with an optional version, range or tag", () => {
    assert.deepEqual(parsePackageRequest("@pipedream/slack"), { name: "@pipedream/slack", range: undefined });
    assert.deepEqual(parsePackageRequest(" @pipedream/slack@0.9.4 "), { name: "@pipedream/slack", range: "0.9.4" });
    assert.deepEqual(parsePackageRequest("left-pad@^1.3"), { name: "left-pad", range: "^1.3" });
    assert.deepEqual(packageRequest({ name: "@pipedream/github", version: "next" }), { name: "@pipedream/github", range: "next" });
    assert.deepEqual(packageRequest({ name: "@pipedream/github", version: ">=1.0.0 <2" }), {
      name: "@pipedream/github",
      range: ">=1.0.0 <2",
    });
    assert.deepEqual(packageRequest({ name: "@pipedream/github", version: "" }), { name: "@pipedream/github", range: undefined });
    assert.deepEqual(packageRequest({ name: "@pipedream/github", version: null }), { name: "@pipedream/github", range: undefined });
  });

  it("refuses flags, URLs, git and file specs, aliases, paths and subpaths", () => {
    for (const spec of [
      "--registry=http://x",
      "-g",
      "https://example.test/x.tgz",
      "git+https://example.test/x.git",
      "github:u/r",
      "file:../x",
      "npm:left-pad@1",
      "../x",
      "/x",
      "@scope/pkg/sub",
      "a b",
      "",
      "@/x",
      "x@1.0.0;rm -rf /",
    ]) {
      refused(() => parsePackageRequest(spec));
    }
    for (const name of ["@pipedream/slack@1.0.0", "x".repeat(215), "git+ssh://x"]) refused(() => packageRequest({ name }));
    for (const version of ["http://x/y.tgz", "file:x", "-x", "1.0.0/x", "a:b", "x".repeat(65)])
      refused(() => packageRequest({ name: "x", version }));
  });

  it("finds sources where @pipedream/<app> packages keep them: sources/<name>/<name>.mjs (or .js, .cjs)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-package-sources-"));
    try {
      for (const path of [
        "sources/b/b.mjs",
        "sources/a/a.js",
        "sources/c/c.cjs",
        "sources/common/base.mjs",
        "sources/b/test-event.mjs",
        "sources/top.mjs",
        "actions/x/x.mjs",
        "sources/d/d.ts",
      ]) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), "export default {};\n");
      }
      assert.deepEqual(await packageSourceFiles(dir), ["sources/a/a.js", "sources/b/b.mjs", "sources/c/c.cjs"]);
      assert.deepEqual(await packageSourceFiles(join(dir, "actions")), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
