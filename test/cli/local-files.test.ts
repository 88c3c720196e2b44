// What deploy and dev send from a local checkout: the component, the files its relative imports
// name, and the nearest package.json of a file importing npm packages, so the service installs
// the ranges it declares (docs/components.md, "Module resolution").
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readLocalComponent } from "../../src/cli/client/local-files.js";

describe("local component files", () => {
  const root = mkdtempSync(join(tmpdir(), "sluice-local-files-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const manifest = JSON.stringify({ name: "@pipedream/app", dependencies: { stripe: "^8.0.0" } });
  writeFileSync(join(root, "package.json"), manifest);
  mkdirSync(join(root, "sources", "new"), { recursive: true });
  mkdirSync(join(root, "sources", "common"), { recursive: true });
  writeFileSync(join(root, "sources", "common", "base.mjs"), 'import Stripe from "stripe";\nexport default { Stripe };\n');
  writeFileSync(join(root, "sources", "new", "new.mjs"), 'import base from "../common/base.mjs";\nexport default { run() {} };\n');
  writeFileSync(join(root, "sources", "new", "plain.mjs"), "export default { run() {} };\n");

  it("sends the nearest package.json of a file that imports a package", () => {
    const local = readLocalComponent(join(root, "sources", "new", "new.mjs"));
    assert.deepEqual(Object.keys(local.files).sort(), ["../../package.json", "../common/base.mjs"]);
    assert.equal(local.files["../../package.json"], manifest);
  });

  it("sends none for code that imports no package", () => {
    assert.deepEqual(readLocalComponent(join(root, "sources", "new", "plain.mjs")).files, {});
  });
});
