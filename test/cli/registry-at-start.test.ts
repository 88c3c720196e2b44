// SLUICE_REGISTRY_PACKAGES as `sluice serve` applies it: packages recorded at start in the
// background, a package that cannot be had only a warning, a recorded one kept at its pinned
// version. npm installs from a loopback registry (SLUICE_NPM_REGISTRY).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startNpmRegistry, type NpmRegistry } from "../helpers/npm-registry.js";
import { waitFor } from "../helpers/wait-for.js";
import { DEMO, demoPackage, helperPackage } from "../fixtures/npm-packages.js";
import { cliEnv, startServer, type RunningServer } from "../helpers/sluice-process.js";

const KEY = `sk_sluice_${"S".repeat(36)}strt`;

for (const dialect of DIALECTS) {
  describe(`SLUICE_REGISTRY_PACKAGES [${dialect}]`, () => {
    let registry: NpmRegistry;
    let database: TestDatabase;
    let markers: string;
    const servers: RunningServer[] = [];
    const serve = async (extra: Record<string, string>) => {
      const server = await startServer(
        cliEnv(database, { SLUICE_NPM_REGISTRY: registry.url, SLUICE_BOOTSTRAP_API_KEY: KEY, ...extra }),
        database.dataDir,
      );
      servers.push(server);
      return server;
    };
    const published = (server: RunningServer, key: string) =>
      request(`${server.origin}/v1`, "GET", `/components/registry/${key}`, { key: KEY });

    before(async () => {
      registry = await startNpmRegistry();
      markers = mkdtempSync(join(tmpdir(), "sluice-markers-"));
      registry.publish(helperPackage(join(markers, "helper")));
      registry.publish(demoPackage("1.0.0", join(markers, "demo")));
      database = await createTestDatabase(dialect);
    });
    after(async () => {
      for (const server of servers)
        if (server.child.exitCode === null && server.child.signalCode === null) await server.stop("SIGKILL").catch(() => undefined);
      await database.drop();
      rmSync(markers, { recursive: true, force: true });
      await registry.close();
    });

    it("packages recorded at start in the background; one that cannot be had is a warning; a recorded one keeps its version", async () => {
      const server = await serve({ SLUICE_REGISTRY_PACKAGES: `${DEMO}, @sluice-test/nope ,not a name!` });
      assert.equal((await request(server.origin, "GET", "/healthz")).status, 200, "the server is up while packages are added");
      await waitFor(async () => (await published(server, "demo-new-item")).status === 200, {
        what: "the package's components",
        timeoutMs: 60_000,
      });
      const warnings = await waitFor(
        async () => {
          const lines = server
            .stdout()
            .split("\n")
            .filter((line) => line.includes("SLUICE_REGISTRY_PACKAGES"))
            .map((line) => JSON.parse(line) as { level: number; msg: string });
          return lines.length >= 2 ? lines : undefined;
        },
        { what: "two warnings", timeoutMs: 60_000 },
      );
      assert.ok(warnings.every((line) => line.level === 40));
      assert.match(
        warnings.find((line) => line.msg.includes("@sluice-test/nope"))?.msg ?? "",
        /could not be added: npm package "@sluice-test\/nope@latest" could not be installed/,
      );
      assert.match(warnings.find((line) => line.msg.includes("not a name!"))?.msg ?? "", /is not an npm package name/);
      assert.equal((await request(server.origin, "GET", "/healthz")).status, 200);
      await server.stop("SIGTERM");

      // A later version is out, and the package is named without one: the recorded 1.0.0 stays.
      registry.publish(demoPackage("1.1.0", join(markers, "demo")));
      const again = await serve({ SLUICE_REGISTRY_PACKAGES: DEMO });
      await waitFor(async () => again.stdout().includes("registry package kept at its recorded version"), {
        what: "the kept package",
        timeoutMs: 60_000,
      });
      assert.equal((await published(again, "demo-new-item")).body.data.version, "1.0.0");
    });
  });
}
