// `sluice registry add|list` as an operator runs them: directly on the database (no server),
// or through a server's admin API when SLUICE_API_URL and SLUICE_ADMIN_TOKEN are set. npm
// installs from a loopback registry (SLUICE_NPM_REGISTRY).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startNpmRegistry, type NpmRegistry } from "../helpers/npm-registry.js";
import { DEMO, demoPackage, helperPackage } from "../fixtures/npm-packages.js";
import { cliEnv, runCli, startServer, type RunningServer } from "../helpers/sluice-process.js";

const ADMIN = "registry-cli-admin-token-of-at-least-32-characters";
const KEY = `sk_sluice_${"R".repeat(36)}regi`;
const DEADLINE_MS = 90_000;

for (const dialect of DIALECTS) {
  describe(`sluice registry [${dialect}]`, () => {
    let registry: NpmRegistry;
    const databases: TestDatabase[] = [];
    const servers: RunningServer[] = [];
    const dirs: string[] = [];
    const freshDatabase = async () => {
      const database = await createTestDatabase(dialect);
      databases.push(database);
      return database;
    };
    const env = (database: TestDatabase, extra: Record<string, string> = {}) =>
      cliEnv(database, { SLUICE_NPM_REGISTRY: registry.url, ...extra });
    const serve = async (database: TestDatabase, extra: Record<string, string> = {}) => {
      const server = await startServer(env(database, { SLUICE_BOOTSTRAP_API_KEY: KEY, ...extra }), database.dataDir);
      servers.push(server);
      return server;
    };
    const published = (server: RunningServer, key: string) =>
      request(`${server.origin}/v1`, "GET", `/components/registry/${key}`, { key: KEY });

    before(async () => {
      registry = await startNpmRegistry();
      const markers = mkdtempSync(join(tmpdir(), "sluice-markers-"));
      dirs.push(markers);
      registry.publish(helperPackage(join(markers, "helper")));
      registry.publish(demoPackage("1.0.0", join(markers, "demo")));
    });
    after(async () => {
      for (const server of servers)
        if (server.child.exitCode === null && server.child.signalCode === null) await server.stop("SIGKILL").catch(() => undefined);
      for (const database of databases) await database.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await registry.close();
    });

    it("registry add without a server writes the database (--json prints the package); a server started later serves its components", async () => {
      const database = await freshDatabase();
      const added = await runCli(["registry", "add", `${DEMO}@1.0.0`, "--json"], env(database), database.dataDir, DEADLINE_MS);
      assert.equal(added.code, 0, added.stderr);
      const data = JSON.parse(added.stdout);
      assert.equal(data.name, DEMO);
      assert.equal(data.version, "1.0.0");
      assert.deepEqual(data.keys, ["demo-new-item", "demo-send", "demo-shout"]);
      assert.deepEqual(
        data.skipped.map((s: { path: string }) => s.path),
        ["sources/broken/broken.mjs"],
      );

      const listed = await runCli(["registry", "list"], env(database), database.dataDir, DEADLINE_MS);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^${DEMO}\\s+1\\.0\\.0\\s+\\S+\\s+demo-new-item,demo-send,demo-shout$`, "m"));

      const unknown = await runCli(["registry", "add", "@sluice-test/nope"], env(database), database.dataDir, DEADLINE_MS);
      assert.equal(unknown.code, 1, unknown.stdout + unknown.stderr);
      assert.match(unknown.stderr, /sluice: npm package "@sluice-test\/nope@latest" could not be installed: .*E404/);

      const server = await serve(database);
      const res = await published(server, "demo-shout");
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.version, "1.0.0");
    });

    it("registry add with SLUICE_API_URL and SLUICE_ADMIN_TOKEN goes through the admin API and prints the published keys", async () => {
      const database = await freshDatabase();
      const server = await serve(database, { SLUICE_ADMIN_TOKEN: ADMIN });
      // No database of its own to write: an empty data directory, and no DATABASE_URL.
      const elsewhere = mkdtempSync(join(tmpdir(), "sluice-cli-elsewhere-"));
      dirs.push(elsewhere);
      const clientEnv = {
        PATH: process.env.PATH ?? "",
        SLUICE_DATA_DIR: elsewhere,
        SLUICE_API_URL: server.origin,
        SLUICE_ADMIN_TOKEN: ADMIN,
      };
      const added = await runCli(["registry", "add", DEMO], clientEnv, elsewhere, DEADLINE_MS);
      assert.equal(added.code, 0, added.stderr);
      assert.equal(added.stdout, `${DEMO}@1.0.0\n  demo-new-item\n  demo-send\n  demo-shout\n`);
      assert.match(added.stderr, /^skipped sources\/broken\/broken\.mjs: /m);
      assert.equal((await published(server, "demo-new-item")).status, 200);

      const listed = await runCli(["registry", "list", "--json"], clientEnv, elsewhere, DEADLINE_MS);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(
        JSON.parse(listed.stdout).map((p: any) => [p.name, p.version]),
        [[DEMO, "1.0.0"]],
      );

      const refused = await runCli(["registry", "add", "@sluice-test/nope"], clientEnv, elsewhere, DEADLINE_MS);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /the server refused: .*@sluice-test\/nope.*\(HTTP 400\)/);
      const wrongToken = await runCli(
        ["registry", "add", DEMO],
        { ...clientEnv, SLUICE_ADMIN_TOKEN: "x".repeat(40) },
        elsewhere,
        DEADLINE_MS,
      );
      assert.equal(wrongToken.code, 1);
      assert.match(wrongToken.stderr, /HTTP 401/);
      for (const spec of ["https://example.test/x.tgz", "--registry=http://x"]) {
        const bad = await runCli(["registry", "add", "--", spec], clientEnv, elsewhere, DEADLINE_MS);
        assert.equal(bad.code, 2, `${spec}: ${bad.stdout} ${bad.stderr}`);
        assert.match(bad.stderr, /^sluice: /m);
      }
      const missing = await runCli(["registry", "add"], clientEnv, elsewhere, DEADLINE_MS);
      assert.equal(missing.code, 2);
    });
  });
}
