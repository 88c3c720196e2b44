// `sluice backup` beside a running server, and the documented restore: back up while events
// arrive, stop, copy the database and key into a fresh data directory, start, and every
// request acknowledged before the backup began is there as an event, with the accounts and a
// connected account whose credentials still decrypt. SQLite only: PostgreSQL is backed up with
// pg_dump, which the command names instead.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createTestDatabase, TEST_SECRET_KEY, type TestDatabase } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { fixtureCode } from "../fixtures/components/sources/helpers.js";
import { cliEnv, runCli, startServer, type RunningServer } from "../helpers/sluice-process.js";
import { waitFor } from "../helpers/wait-for.js";

const ADMIN_KEY = `sk_sluice_${"R".repeat(36)}rest`;
const SECRET = "restored-credential-9d1e";
const EMITTER = `export default { key: "backup-echo", name: "Backup Echo", version: "0.0.1", props: { http: "$.interface.http" }, run(event) { this.$emit({ n: event.body.n }); } };`;
/** Requests in all: below the 100 events a stream keeps, so none is trimmed away. */
const REQUESTS = 90;
const BEFORE_BACKUP = 40;

describe("sluice backup and restore [sqlite]", () => {
  const databases: TestDatabase[] = [];
  const servers: RunningServer[] = [];
  const scratch = mkdtempSync(join(tmpdir(), "sluice-backup-"));
  const env = (database: TestDatabase, extra: Record<string, string> = {}) =>
    cliEnv(database, { SLUICE_SANDBOX: "none", SLUICE_BOOTSTRAP_API_KEY: ADMIN_KEY, LOG_LEVEL: "warn", ...extra });
  const fresh = async () => {
    const database = await createTestDatabase("sqlite");
    databases.push(database);
    return database;
  };
  const serve = async (database: TestDatabase) => {
    const server = await startServer(env(database, { LOG_LEVEL: "info" }), database.dataDir, [], 60_000);
    servers.push(server);
    return server;
  };
  after(async () => {
    for (const server of servers)
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop("SIGKILL").catch(() => undefined);
    for (const database of databases) await database.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("a backup taken under load restores with every acknowledged event, the accounts and readable credentials", async () => {
    const original = await fresh();
    const server = await serve(original);
    const api = (method: string, path: string, json?: unknown, key = ADMIN_KEY) =>
      request(`${server.origin}/v1`, method, path, { key, json });
    const other = await runCli(["users", "create", "--username", "erin", "--email", "erin@example.test"], env(original), original.dataDir);
    assert.equal(other.code, 0, other.stderr);
    const erin = JSON.parse(other.stdout).data as { id: string; api_key: string };
    const connected = await api("POST", "/accounts", { app: "demo", credentials: { token: SECRET } });
    assert.equal(connected.status, 200, connected.text);
    const authSource = await api("POST", "/sources", {
      component_code: fixtureCode("app-auth.mjs"),
      configured_props: { demo: { authProvisionId: connected.body.data.id } },
    });
    assert.equal(authSource.status, 200, authSource.text);
    const echo = await api("POST", "/sources", { component_code: EMITTER });
    assert.equal(echo.status, 200, echo.text);
    const endpointPath = new URL(echo.body.data.configured_props.http.endpoint_url).pathname;

    // Requests go on arriving, two at a time, before, during and after the backup.
    const acknowledged = new Set<number>();
    let next = 0;
    const sendOne = async (): Promise<void> => {
      while (next < REQUESTS) {
        const n = next++;
        const res = await fetch(`${server.origin}${endpointPath}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ n }),
        });
        await res.arrayBuffer();
        if (res.status === 200) acknowledged.add(n);
      }
    };
    const load = Promise.all([sendOne(), sendOne()]);
    await waitFor(() => acknowledged.size >= BEFORE_BACKUP, { what: "requests acknowledged before the backup", timeoutMs: 20_000 });
    const beforeBackup = new Set(acknowledged);
    const file = join(scratch, "sluice-backup.db");
    const backup = await runCli(["backup", file], env(original), original.dataDir, 60_000);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /database copied to .*sluice-backup\.db/);
    assert.match(backup.stdout, /sluice-backup\.db\.key \(mode 0600\)/);
    await load;
    assert.equal(statSync(file).mode & 0o777, 0o600, "the copy holds every account's data: the owner's alone");
    assert.equal(statSync(`${file}.key`).mode & 0o777, 0o600);
    assert.equal((await server.stop("SIGTERM")).code, 0);

    // The documented restore: a fresh data directory with the copy as sluice.db and the key as secret.key.
    const restored = await fresh();
    copyFileSync(file, join(restored.dataDir, "sluice.db"));
    copyFileSync(`${file}.key`, join(restored.dataDir, "secret.key"));
    const again = await serve(restored);
    const get = (path: string, key = ADMIN_KEY) => request(`${again.origin}/v1`, "GET", path, { key });
    assert.equal((await get("/users/me")).status, 200);
    const erinNow = await get("/users/me", erin.api_key);
    assert.equal(erinNow.status, 200, erinNow.text);
    assert.equal(erinNow.body.data.id, erin.id);

    // Acknowledged requests are durable jobs: the restored server runs any the copy still had queued.
    const emitted = await waitFor(
      async () => {
        const res = await request(`${again.origin}/v1`, "GET", `/sources/${echo.body.data.id}/event_summaries`, {
          key: ADMIN_KEY,
          query: { limit: 100, expand: "event" },
        });
        const ns = new Set((res.body.data as Array<{ event: { n: number } }>).map((summary) => summary.event.n));
        return [...beforeBackup].every((n) => ns.has(n)) && ns;
      },
      { what: "every request acknowledged before the backup, as an event", timeoutMs: 30_000 },
    );
    assert.ok(emitted.size >= beforeBackup.size);

    const sourceNow = await get(`/sources/${authSource.body.data.id}`);
    const answer = await fetch(sourceNow.body.data.configured_props.http.endpoint_url, { method: "POST" });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      ((await answer.json()) as { auth: unknown }).auth,
      { token: SECRET },
      "the connected account's credentials decrypt with the restored key",
    );
    assert.equal((await again.stop("SIGTERM")).code, 0);
  });

  it("refuses to replace a file without --force, and replaces it with --force", async () => {
    const database = await fresh();
    const server = await serve(database);
    await server.stop("SIGTERM");
    const file = join(scratch, "exists.db");
    writeFileSync(file, "not a backup");
    const refused = await runCli(["backup", file], env(database), database.dataDir);
    assert.equal(refused.code, 2, refused.stdout);
    assert.match(refused.stderr, /exists\.db exists; choose another file or pass --force/);
    const forced = await runCli(["backup", "--force", file], env(database), database.dataDir);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it("with SLUICE_SECRET_KEY set, names the key instead of writing it to a file", async () => {
    const database = await fresh();
    const server = await serve(database);
    await server.stop("SIGTERM");
    // The key the database was started with is the file's: a different environment key is reported.
    const file = join(scratch, "env-key.db");
    const result = await runCli(["backup", file], env(database, { SLUICE_SECRET_KEY: TEST_SECRET_KEY }), database.dataDir);
    assert.match(result.stdout, /the credentials key is SLUICE_SECRET_KEY \(set in the environment, not written to a file\)/);
    assert.equal(existsSync(`${file}.key`), false);
    assert.equal(result.code, 1, "SLUICE_SECRET_KEY is not the key this database was used with");
    assert.match(result.stderr, /SLUICE_SECRET_KEY is not the key the database's credentials were encrypted with/);
  });

  it("with DATABASE_URL set, says to use pg_dump and keep SLUICE_SECRET_KEY (nothing is contacted)", async () => {
    const database = await fresh();
    const result = await runCli(
      ["backup", join(scratch, "pg.db")],
      { ...env(database), DATABASE_URL: "postgres://sluice@127.0.0.1:1/none", SLUICE_SECRET_KEY: TEST_SECRET_KEY },
      database.dataDir,
    );
    assert.equal(result.code, 2, result.stdout);
    assert.match(result.stderr, /pg_dump/);
    assert.match(result.stderr, /SLUICE_SECRET_KEY/);
  });

  it("says so when there is no database to back up", async () => {
    const dir = mkdtempSync(join(scratch, "empty-"));
    const result = await runCli(["backup", join(scratch, "none.db")], { PATH: process.env.PATH ?? "", SLUICE_DATA_DIR: dir }, dir);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /there is no database at .*sluice\.db: check SLUICE_DATA_DIR/);
  });
});
