// Pure logic of module preparation: GitHub URL mapping, specifier scanning and parsing, and
// the egress guard on service-side fetches of component_url.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { fetchComponentCode, rawCodeUrl } from "../../src/runtime/modules/fetch-code.js";
import { findSpecifiers, kindOf, looksLikeEsm, parsePackageSpecifier, rewriteSpecifiers } from "../../src/runtime/modules/specifiers.js";

describe("component modules", () => {
  it("maps GitHub blob URLs to raw.githubusercontent.com and leaves others alone", () => {
    assert.equal(
      rawCodeUrl("https://github.com/PipedreamHQ/pipedream/blob/master/components/github/sources/new-star/new-star.mjs"),
      "https://raw.githubusercontent.com/PipedreamHQ/pipedream/master/components/github/sources/new-star/new-star.mjs",
    );
    assert.equal(rawCodeUrl("https://github.com/o/r/blob/v1.2/a/b.js?plain=1#L3"), "https://raw.githubusercontent.com/o/r/v1.2/a/b.js");
    assert.equal(rawCodeUrl("https://example.com/blob/x.js"), "https://example.com/blob/x.js");
    assert.equal(rawCodeUrl("https://raw.githubusercontent.com/o/r/main/x.js"), "https://raw.githubusercontent.com/o/r/main/x.js");
  });

  it("finds import, export-from, dynamic import and require specifiers, ignoring comments", () => {
    const code = [
      `import a from "pkg-a@1.2.3";`,
      `import { b } from './b.mjs';`,
      `import "side-effect";`,
      `export * from "../../app.app.mjs";`,
      `// import nope from "commented-out";`,
      `/* require("also-commented") */`,
      `const c = require("@scope/c@^2/sub/path");`,
      `const d = await import("node:fs");`,
      `const url = "http://example.com/x"; // a string with slashes`,
    ].join("\n");
    const specifiers = findSpecifiers(code);
    assert.deepEqual(
      specifiers.map((s) => s.value),
      ["pkg-a@1.2.3", "./b.mjs", "side-effect", "../../app.app.mjs", "@scope/c@^2/sub/path", "node:fs"],
    );
    for (const s of specifiers) assert.equal(code.slice(s.start, s.end), s.value);
    const rewritten = rewriteSpecifiers(code, new Map([[specifiers[0]!.start, "pkg-a"]]), specifiers);
    assert.match(rewritten, /import a from "pkg-a";/);
  });

  it("classifies and parses specifiers, refusing names that are not npm names", () => {
    assert.equal(kindOf("fs"), "builtin");
    assert.equal(kindOf("node:crypto"), "builtin");
    assert.equal(kindOf("fs/promises"), "builtin");
    assert.equal(kindOf("./x.mjs"), "relative");
    assert.equal(kindOf("@sluice/sdk"), "sdk");
    assert.equal(kindOf("https://evil.example/x.js"), "unsupported");
    assert.equal(kindOf("axios@0.19.2"), "package");
    assert.deepEqual(parsePackageSpecifier("axios@0.19.2"), { name: "axios", version: "0.19.2", subpath: "" });
    assert.deepEqual(parsePackageSpecifier("is-odd"), { name: "is-odd", version: undefined, subpath: "" });
    assert.deepEqual(parsePackageSpecifier("@scope/pkg@^1.0.0/lib/x.js"), { name: "@scope/pkg", version: "^1.0.0", subpath: "/lib/x.js" });
    assert.equal(parsePackageSpecifier("--registry=http://evil"), undefined);
    assert.equal(parsePackageSpecifier("a@1;rm -rf /"), undefined);
  });

  it("tells ESM from CommonJS", () => {
    assert.equal(looksLikeEsm("export default { run() {} }"), true);
    assert.equal(looksLikeEsm(`import x from "y";\nmodule.exports = {}`), true);
    assert.equal(looksLikeEsm(`const x = await import("y");\nmodule.exports = { run() {} }`), false);
    assert.equal(looksLikeEsm(`// export default nothing\nmodule.exports = { run() {} }`), false);
  });

  it("service-side fetches of component_url go through the egress guard", async () => {
    const server = createServer((_req, res) => res.end("module.exports = { run() {} }"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const url of [
        `http://127.0.0.1:${port}/c.js`,
        `http://localhost:${port}/c.js`,
        `http://2130706433:${port}/c.js`,
        "http://169.254.169.254/latest",
      ]) {
        await assert.rejects(
          fetchComponentCode(url, { allowPrivate: false }),
          (error: any) => error.code === "VALIDATION" && /refused/.test(error.message),
          url,
        );
      }
      assert.equal(await fetchComponentCode(`http://127.0.0.1:${port}/c.js`, { allowPrivate: true }), "module.exports = { run() {} }");
      await assert.rejects(
        fetchComponentCode("ftp://example.com/x.js", { allowPrivate: true }),
        (error: any) => error.code === "VALIDATION",
      );
    } finally {
      server.close();
    }
  });
});
