// The `sluice` command as an operator runs it: accounts made without the server, first-start
// bootstrap, restarts on the same database, and graceful shutdown.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { cliEnv, runCli, startServer, type RunningServer } from "../helpers/sluice-process.js";

const KEY_PATTERN = /sk_sluice_[A-Za-z0-9]{40}/g;
const BOOTSTRAP_KEY = `sk_sluice_${"B".repeat(36)}boot`;

const me = (server: RunningServer, key: string) => request(`${server.origin}/v1`, "GET", "/users/me", { key });

for (const dialect of DIALECTS) {
  describe(`sluice CLI [${dialect}]`, () => {
    const databases: TestDatabase[] = [];
    const servers: RunningServer[] = [];
    const freshDatabase = async () => {
      const database = await createTestDatabase(dialect);
      databases.push(database);
      return database;
    };
    const serve = async (database: TestDatabase, extra: Record<string, string> = {}, args: string[] = []) => {
      const server = await startServer(cliEnv(database, extra), database.dataDir, args);
      servers.push(server);
      return server;
    };
    after(async () => {
      for (const server of servers)
        if (server.child.exitCode === null && server.child.signalCode === null) await server.stop("SIGKILL").catch(() => undefined);
      for (const database of databases) await database.drop();
    });

    describe("users create, without the server running", () => {
      let database: TestDatabase;
      let created: { id: string; username: string; email: string; plan: string; api_key: string };
      before(async () => {
        database = await freshDatabase();
        const result = await runCli(
          ["users", "create", "--username", "carol", "--email", "carol@example.test", "--plan", "paid"],
          cliEnv(database),
          database.dataDir,
        );
        assert.equal(result.code, 0, result.stderr);
        created = JSON.parse(result.stdout).data;
      });

      it("prints the new account with its full key", () => {
        assert.match(created.id, /^u_/);
        assert.equal(created.username, "carol");
        assert.equal(created.email, "carol@example.test");
        assert.equal(created.plan, "paid");
        assert.match(created.api_key, /^sk_sluice_[A-Za-z0-9]{40}$/);
      });

      it("refuses a taken username, a bad email and missing options with exit code 2", async () => {
        for (const args of [
          ["--username", "carol", "--email", "other@example.test"],
          ["--username", "dave", "--email", "not-an-email"],
          ["--username", "dave", "--email", "d@example.test", "--plan", "gold"],
          ["--username", "dave"],
          ["--email", "d@example.test"],
          ["--username", "dave", "--email", "d@example.test", "--bogus"],
        ]) {
          const result = await runCli(["users", "create", ...args], cliEnv(database), database.dataDir);
          assert.equal(result.code, 2, `${args.join(" ")}: ${result.stdout} ${result.stderr}`);
          assert.match(result.stderr, /^sluice: /m);
        }
      });

      it("the server started later on that database accepts the key, and generates no bootstrap key", async () => {
        const server = await serve(database);
        const res = await me(server, created.api_key);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.data.id, created.id);
        assert.equal(res.body.data.username, "carol");
        assert.equal(server.stdout().match(KEY_PATTERN), null, "no key is printed when an account exists");
        const stopped = await server.stop("SIGTERM");
        assert.equal(stopped.code, 0);
      });

      it("users rotate-key prints a new key and revokes the old ones; a running server refuses them within 5 s", async () => {
        const server = await serve(database);
        assert.equal((await me(server, created.api_key)).status, 200, "the old key works and is now cached");
        const rotated = await runCli(["users", "rotate-key", "--username", "carol"], cliEnv(database), database.dataDir);
        assert.equal(rotated.code, 0, rotated.stderr);
        const newKey = rotated.stdout.trim();
        assert.match(newKey, /^sk_sluice_[A-Za-z0-9]{40}$/);
        assert.equal((await me(server, newKey)).status, 200);
        const deadline = Date.now() + 5_000;
        let status = 200;
        while (Date.now() < deadline && status === 200) status = (await me(server, created.api_key)).status;
        assert.equal(status, 401, "the old key is refused within 5 s");
        const byId = await runCli(["users", "rotate-key", "--id", created.id], cliEnv(database), database.dataDir);
        assert.equal(byId.code, 0, byId.stderr);
        assert.equal((await me(server, byId.stdout.trim())).status, 200);
        assert.equal((await server.stop("SIGTERM")).code, 0);
        for (const args of [["--username", "nobody"], [], ["--username", "carol", "--id", created.id]]) {
          const bad = await runCli(["users", "rotate-key", ...args], cliEnv(database), database.dataDir);
          assert.equal(bad.code, 2, `${args.join(" ")}: ${bad.stderr}`);
          assert.match(bad.stderr, /^sluice: /m);
        }
      });

      it("an unknown command prints the usage and exits 2", async () => {
        const result = await runCli(["frobnicate"], cliEnv(database), database.dataDir);
        assert.equal(result.code, 2);
        assert.match(result.stderr, /usage:/);
      });
    });

    it("bootstrap: SLUICE_BOOTSTRAP_API_KEY becomes the first account's key, and is not printed", async () => {
      const database = await freshDatabase();
      const server = await serve(database, { SLUICE_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY });
      const res = await me(server, BOOTSTRAP_KEY);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.username, "admin");
      assert.equal(server.stdout().match(KEY_PATTERN), null);
      assert.equal((await server.stop()).code, 0);
    });

    it("bootstrap: with no key configured, a generated key is printed once, and not on the next start", async () => {
      const database = await freshDatabase();
      const first = await serve(database);
      const printed = first.stdout().match(KEY_PATTERN) ?? [];
      assert.equal(printed.length, 1, first.stdout());
      const key = printed[0] as string;
      assert.equal((await me(first, key)).status, 200);
      assert.equal((await first.stop()).code, 0);

      // Restart on the same database: migrations are already applied, no second account.
      const second = await serve(database);
      assert.equal(second.stdout().match(KEY_PATTERN), null, second.stdout());
      const res = await me(second, key);
      assert.equal(res.status, 200, "the key survives the restart");
      assert.equal(res.body.data.username, "admin");
      assert.equal((await second.stop("SIGINT")).code, 0, "SIGINT also shuts down cleanly");
    });

    it("SIGTERM: the server exits 0 promptly and stops answering", async () => {
      const database = await freshDatabase();
      const server = await serve(database, { SLUICE_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY });
      assert.equal((await request(server.origin, "GET", "/healthz")).status, 200);
      // stop() fails past its deadline (30 s): well under the 72 s keep-alive timeout that would
      // hold a server which waited for its connections instead of closing them.
      const stopped = await server.stop("SIGTERM");
      assert.equal(stopped.code, 0, server.stderr());
      assert.match(server.stdout(), /shutting down/);
      await assert.rejects(fetch(`${server.origin}/healthz`));
    });

    it("serve --role api answers HTTP; an unknown role is refused with exit code 2", async () => {
      const database = await freshDatabase();
      const server = await serve(database, { SLUICE_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY }, ["--role", "api"]);
      assert.equal((await me(server, BOOTSTRAP_KEY)).status, 200);
      assert.equal((await server.stop()).code, 0);
      const bad = await runCli(["serve", "--role", "chef"], cliEnv(database), database.dataDir);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /unknown role/);
    });

    it("a bad setting is a clear error with exit code 2", async () => {
      const database = await freshDatabase();
      const bad = await runCli(["serve"], cliEnv(database, { PORT: "eighty" }), database.dataDir);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /PORT/);
    });

    it("an admin token shorter than 32 characters is a clear startup error with exit code 2", async () => {
      const database = await freshDatabase();
      const bad = await runCli(["serve"], cliEnv(database, { SLUICE_ADMIN_TOKEN: "short-token" }), database.dataDir);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /^sluice: SLUICE_ADMIN_TOKEN must have at least 32 characters/m);
    });
  });
}
