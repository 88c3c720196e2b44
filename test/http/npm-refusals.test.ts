// A source whose code imports a package from the registry that depends on something other than
// a registry package (git+file:, file: tarball, file: folder, a loopback http URL) is refused
// with a 400 VALIDATION naming the spec, and nothing of it lands in the package cache that
// runners read (a file: folder would have been a link to a host folder there).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/dialects.js";
import { startNpmRegistry, tarGz, type NpmRegistry } from "../helpers/npm-registry.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

for (const dialect of DIALECTS) {
  describe(`npm installs only registry packages [${dialect}]`, () => {
    let registry: NpmRegistry;
    let database: TestDatabase;
    let app: TestApp;
    let host: string;
    let tarballServer: Server;
    let tarballRequests = 0;
    const specs: Record<string, string> = {};

    before(async () => {
      host = mkdtempSync(join(tmpdir(), "sluice-npm-refusals-"));
      const secret = tarGz({ "package.json": JSON.stringify({ name: "secret", version: "1.0.0" }), "secret.key": "host secret" });
      writeFileSync(join(host, "secret.tgz"), secret);
      mkdirSync(join(host, "secret-dir"));
      writeFileSync(join(host, "secret-dir", "package.json"), JSON.stringify({ name: "secret", version: "1.0.0" }));
      tarballServer = createServer((_request, response) => {
        tarballRequests++;
        response.end(secret);
      });
      await new Promise<void>((resolve) => tarballServer.listen(0, "127.0.0.1", resolve));
      specs.git = `git+file://${join(host, "repo.git")}`;
      specs.file = `file:${join(host, "secret.tgz")}`;
      specs.directory = `file:${join(host, "secret-dir")}`;
      specs.remote = `http://127.0.0.1:${(tarballServer.address() as AddressInfo).port}/secret.tgz`;
      registry = await startNpmRegistry();
      for (const [kind, spec] of Object.entries(specs))
        registry.publish({
          name: `hostile-${kind}`,
          version: "1.0.0",
          files: { "index.js": "module.exports = 1;\n" },
          dependencies: { secret: spec },
        });
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { npmRegistry: registry.url }, { database });
    });
    after(async () => {
      await app?.close();
      await database?.drop();
      await registry?.close();
      tarballServer?.close();
      rmSync(host, { recursive: true, force: true });
    });

    it("npm reaches no host but the configured registry: a packument naming a tarball elsewhere is refused, never fetched", async () => {
      const port = (tarballServer.address() as AddressInfo).port;
      // The registry is 127.0.0.1; to npm "localhost" is another host, as any other would be.
      registry.publish({
        name: "elsewhere",
        version: "1.0.0",
        files: { "index.js": "" },
        tarballUrl: `http://localhost:${port}/elsewhere.tgz`,
      });
      const before = tarballRequests;
      const account = await app.newAccount();
      const code = `import e from "elsewhere";\nexport default { key: "elsewhere", version: "0.0.1", props: {}, async run() { this.$emit({ e }); } };\n`;
      const res = await account.api.post("/sources", { component_code: code });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error, /npm package "elsewhere@latest" was refused: .*EALLOWREMOTE/);
      assert.equal(tarballRequests, before, "the tarball URL was never fetched");
    });

    it("answers 400 naming the refused spec for each kind, and caches nothing", async () => {
      const account = await app.newAccount();
      for (const [kind, spec] of Object.entries(specs)) {
        const code = `import hostile from "hostile-${kind}";\nexport default { key: "hostile-${kind}", version: "0.0.1", props: {}, async run() { this.$emit({ hostile }); } };\n`;
        const res = await account.api.post("/sources", { component_code: code });
        assert.equal(res.status, 400, `${kind}: ${res.text}`);
        assert.equal(res.body.code, "VALIDATION");
        assert.ok(String(res.body.error).includes(spec), `${kind}: "${res.body.error}" names ${spec}`);
      }
      const cache = join(app.config.dataDir, "runtime", "packages");
      const entries = existsSync(cache) ? readdirSync(cache).filter((name) => !name.startsWith(".")) : [];
      assert.deepEqual(entries, [], "nothing entered the package cache");
      // npm refuses before fetching (its --allow-* settings): no loopback request, so no status to echo.
      assert.equal(tarballRequests, 0, "the loopback URL was never fetched");
    });
  });
}
