// Each npm import of component code gets the version npm would choose for it, end to end over
// HTTP on both databases, with packages from a loopback npm registry: the range the nearest
// package.json declares (beside the component_url, or among component_files), else the version
// pinned in the specifier, else the newest; a require() of a package whose newest major is ESM
// only gets the newest major require() can load, while an import still gets the newest.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startNpmRegistry, type NpmRegistry, type TestPackage } from "../helpers/npm-registry.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const LIB = "sluice-test-lib";
const FETCHER = "sluice-test-fetcher";

/** A CommonJS package whose export names its version. */
const cjs = (name: string, version: string): TestPackage => ({
  name,
  version,
  main: "index.js",
  files: { "index.js": `module.exports = { version: ${JSON.stringify(version)} };\n` },
});

/** An ESM-only major, as node-fetch 3 is: "type": "module" and an exports map without require. */
const esmOnly = (name: string, version: string): TestPackage => ({
  name,
  version,
  files: {
    "package.json": JSON.stringify({ name, version, type: "module", exports: { ".": { import: "./index.js" } } }),
    "index.js": `export const version = ${JSON.stringify(version)};\nexport default { version };\n`,
  },
});

/** A source answering its endpoint with what `expression` gives (the version it loaded). */
const source = (head: string, expression: string, esm = false) =>
  esm
    ? `${head}\nexport default { key: "versions", version: "0.0.1", props: { http: { type: "$.interface.http", customResponse: true } },\n  async run() { this.http.respond({ status: 200, body: { version: ${expression} } }); } };\n`
    : `${head}\nmodule.exports = { key: "versions", version: "0.0.1", props: { http: { type: "$.interface.http", customResponse: true } },\n  async run() { this.http.respond({ status: 200, body: { version: ${expression} } }); } };\n`;

/** Serves files by path (a component and the package.json above it, as a GitHub tree has). */
function serveFiles(files: Record<string, string>): Promise<Server> {
  const server = createServer((request, response) => {
    const body = files[new URL(request.url!, "http://x").pathname];
    if (body === undefined) response.writeHead(404).end("not found");
    else response.writeHead(200, { "content-type": "text/plain" }).end(body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

for (const dialect of DIALECTS) {
  describe(`dependency versions as npm would resolve them [${dialect}]`, () => {
    let registry: NpmRegistry;
    let files: Server;
    let filesUrl: string;
    let app: TestApp;
    let account: Account;

    before(async () => {
      registry = await startNpmRegistry();
      for (const version of ["8.1.0", "8.2.0", "23.0.0"]) registry.publish(cjs(LIB, version));
      registry.publish(cjs(FETCHER, "1.9.0"));
      registry.publish(cjs(FETCHER, "2.7.0"));
      registry.publish(esmOnly(FETCHER, "3.3.2"));
      files = await serveFiles({
        "/components/app/package.json": JSON.stringify({ name: "@pipedream/app", dependencies: { [LIB]: "^8.1.0" } }),
        "/components/app/sources/new/new.js": source(`const lib = require("${LIB}");`, "lib.version"),
        "/components/app/sources/pinned/pinned.js": source(`const lib = require("${LIB}@8.1.0");`, "lib.version"),
        "/elsewhere/plain.js": source(`const lib = require("${LIB}");`, "lib.version"),
      });
      filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
      // The component URLs are on loopback: the service fetches them only when private egress is allowed.
      app = await startTestApp(dialect, { npmRegistry: registry.url, allowPrivateEgress: true, runTimeoutSeconds: 10 });
      account = await app.newAccount();
    });
    after(async () => {
      await app?.close();
      await registry?.close();
      files?.close();
    });

    async function versionServed(input: Record<string, unknown>): Promise<string> {
      const created = await account.api.post("/sources", input);
      assert.equal(created.status, 200, created.text);
      const answer = await fetch(created.body.data.configured_props.http.endpoint_url, { method: "POST", body: "{}" });
      assert.equal(answer.status, 200);
      return ((await answer.json()) as { version: string }).version;
    }

    it("honours the range the nearest package.json above the component_url declares", async () => {
      assert.equal(await versionServed({ component_url: `${filesUrl}/components/app/sources/new/new.js` }), "8.2.0");
      // Declared wins over a pin, as npm's install of the app's package.json would.
      assert.equal(await versionServed({ component_url: `${filesUrl}/components/app/sources/pinned/pinned.js` }), "8.2.0");
      assert.equal(await versionServed({ component_url: `${filesUrl}/elsewhere/plain.js` }), "23.0.0", "nothing declared: the newest");
    });

    it("honours a package.json sent among component_files", async () => {
      const code = source(`const lib = require("${LIB}");`, "lib.version");
      const declared = { "../../package.json": JSON.stringify({ dependencies: { [LIB]: "~8.1.0" } }) };
      assert.equal(await versionServed({ component_code: code, component_files: declared }), "8.1.0");
    });

    it("takes the version pinned in the specifier when nothing is declared, else the newest", async () => {
      assert.equal(await versionServed({ component_code: source(`const lib = require("${LIB}@8.1.0");`, "lib.version") }), "8.1.0");
      assert.equal(await versionServed({ component_code: source(`const lib = require("${LIB}");`, "lib.version") }), "23.0.0");
    });

    it("gives a require() of an ESM-only newest major the newest major require() can load; an import the newest", async () => {
      const required = source(`const fetcher = require("${FETCHER}");`, "fetcher.version");
      assert.equal(await versionServed({ component_code: required }), "2.7.0");
      const imported = source(`import fetcher from "${FETCHER}";`, "fetcher.version", true);
      assert.equal(await versionServed({ component_code: imported }), "3.3.2");
      // A require() in an ES module (it gets a module-local require) is a require too.
      const mixed = source(`const fetcher = require("${FETCHER}");`, "fetcher.version", true);
      assert.equal(await versionServed({ component_code: mixed }), "2.7.0");
    });
  });
}
