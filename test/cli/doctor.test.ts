// `sluice doctor`: one line per concern, the fix under what is wrong, exit 0 when nothing
// failed and 1 otherwise. What depends on the machine (npm, bubblewrap, cgroups, free space) is
// stood in for, so these tests say the same everywhere; the rest is real: settings, the
// database, the key file, ports on loopback.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pino } from "pino";
import { runDoctor, type DoctorMachine } from "../../src/cli/doctor/run-doctor.js";
import { nodeCheck } from "../../src/cli/doctor/runtime-checks.js";
import { openStore } from "../../src/store/store.js";
import { createTestDatabase, DIALECTS, TEST_SECRET_KEY, type TestDatabase } from "../helpers/dialects.js";
import { runCli } from "../helpers/sluice-process.js";

const HEALTHY_MACHINE: Partial<DoctorMachine> = {
  nodeVersion: "v22.11.0",
  npmVersion: async () => "11.6.2",
  bwrap: () => undefined,
  cgroups: async () => ({ memory: "cgroup-v2", description: "runner memory capped by cgroup-v2", notes: [] }),
  freeBytes: () => 50 * 1024 ** 3,
};

async function doctor(env: Record<string, string>, machine: Partial<DoctorMachine> = {}): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await runDoctor({
    env: { PORT: "0", HOST: "127.0.0.1", ...env },
    write: (text) => (out += text),
    machine: { ...HEALTHY_MACHINE, ...machine },
  });
  return { code, out };
}

/** The line of a check and the fix line under it, if any. */
function lineOf(out: string, name: string): string {
  const lines = out.split("\n");
  const at = lines.findIndex((line) => new RegExp(`^(ok  |WARN|FAIL)  ${name} `).test(line));
  assert.ok(at >= 0, `no line for ${name} in:\n${out}`);
  return lines[at + 1]?.trimStart().startsWith("fix: ") ? `${lines[at]}\n${lines[at + 1]}` : lines[at]!;
}

function listenOnLoopback(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
}

describe("sluice doctor", () => {
  const dirs: string[] = [];
  const closers: Array<() => void> = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-doctor-"));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const close of closers) close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("exits 0 on a healthy setup, every check ok", async () => {
    const { code, out } = await doctor({ SLUICE_DATA_DIR: dataDir() });
    assert.equal(code, 0, out);
    for (const name of ["node", "npm", "sandbox", "cgroups", "disk", "database", "key", "public URL", "port PORT"])
      assert.match(lineOf(out, name), /^ok /);
    assert.match(out, /nothing is wrong\n$/);
  });

  it("fails a key file others can read, with the chmod that fixes it", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, "secret.key"), `${Buffer.alloc(32, 7).toString("base64")}\n`);
    chmodSync(join(dir, "secret.key"), 0o644);
    const { code, out } = await doctor({ SLUICE_DATA_DIR: dir });
    assert.equal(code, 1, out);
    assert.match(lineOf(out, "key"), /^FAIL {2}key .*readable by others \(mode 0644\)[^\n]*\n\s+fix: chmod 600 .*secret\.key$/);
    assert.match(out, /1 problem to fix/);
  });

  it("fails a bad SLUICE_PUBLIC_URL with the setting to change", async () => {
    const notHttp = await doctor({ SLUICE_DATA_DIR: dataDir(), SLUICE_PUBLIC_URL: "ftp://sluice.example.com" });
    assert.equal(notHttp.code, 1, notHttp.out);
    assert.match(
      lineOf(notHttp.out, "public URL"),
      /^FAIL .*must be http or https, not ftp[^\n]*\n\s+fix: set SLUICE_PUBLIC_URL to the URL clients reach this server at, e\.g\. https:\/\/sluice\.example\.com$/,
    );
    const notUrl = await doctor({ SLUICE_DATA_DIR: dataDir(), SLUICE_PUBLIC_URL: "sluice dot example" });
    assert.equal(notUrl.code, 1, notUrl.out);
    assert.match(
      lineOf(notUrl.out, "configuration"),
      /^FAIL .*SLUICE_PUBLIC_URL must be an absolute URL[^\n]*\n\s+fix: correct that setting/,
    );
    const loopbackBehindAll = await doctor({ SLUICE_DATA_DIR: dataDir(), HOST: "0.0.0.0", SLUICE_PUBLIC_URL: "http://127.0.0.1:8080" });
    assert.match(lineOf(loopbackBehindAll.out, "public URL"), /^WARN .*webhook senders and OAuth providers cannot reach it/);
  });

  it("fails a port held by something else, and accepts one held by a running Sluice", async () => {
    const other = createServer();
    closers.push(() => other.close());
    const taken = await listenOnLoopback(other);
    const { code, out } = await doctor({ SLUICE_DATA_DIR: dataDir(), PORT: String(taken) });
    assert.equal(code, 1, out);
    assert.match(
      lineOf(out, "port PORT"),
      new RegExp(
        `^FAIL .*127\\.0\\.0\\.1:${taken} is in use by something that is not Sluice[^\\n]*\\n\\s+fix: stop what listens there .* or set PORT to a free port$`,
      ),
    );

    const sluiceLike = createHttpServer((_request, response) =>
      response.setHeader("content-type", "application/json").end(JSON.stringify({ status: "ok", sandbox: "bwrap" })),
    );
    closers.push(() => sluiceLike.close());
    const running = await listenOnLoopback(sluiceLike);
    const ours = await doctor({ SLUICE_DATA_DIR: dataDir(), PORT: String(running) });
    assert.equal(ours.code, 0, ours.out);
    assert.match(lineOf(ours.out, "port PORT"), /^ok .*in use by a running Sluice/);
  });

  it("fails npm before 11 and a machine where the sandbox cannot start; SLUICE_SANDBOX=none is a warning", async () => {
    const { code, out } = await doctor(
      { SLUICE_DATA_DIR: dataDir() },
      { npmVersion: async () => "10.9.2", bwrap: () => "bwrap cannot create the sandbox here (setting up uid map: Permission denied)" },
    );
    assert.equal(code, 1, out);
    assert.match(lineOf(out, "npm"), /^FAIL .*npm 10\.9\.2[^\n]*\n\s+fix: run `npm install` in Sluice.s folder/);
    assert.match(lineOf(out, "sandbox"), /^FAIL .*WITHOUT the sandbox[^\n]*\n\s+fix: install bubblewrap .*user namespaces/);
    assert.match(out, /2 problems to fix/);
    const accepted = await doctor(
      { SLUICE_DATA_DIR: dataDir(), SLUICE_SANDBOX: "none" },
      { bwrap: () => assert.fail("not probed when the operator chose none") },
    );
    assert.equal(accepted.code, 0, accepted.out);
    assert.match(lineOf(accepted.out, "sandbox"), /^WARN .*SLUICE_SANDBOX=none/);
    const lowDisk = await doctor({ SLUICE_DATA_DIR: dataDir() }, { freeBytes: () => 50 * 1024 * 1024 });
    assert.match(lineOf(lowDisk.out, "disk"), /^FAIL {2}disk .*50 MB free[^\n]*\n\s+fix: free space there/);
  });

  it("`sluice doctor` prints the fix and exits 1 when something is wrong", async () => {
    const dir = dataDir();
    const result = await runCli(
      ["doctor"],
      { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", SLUICE_DATA_DIR: dir, SLUICE_PUBLIC_URL: "ftp://sluice.example.com" },
      dir,
      60_000,
    );
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /FAIL {2}public URL .*\n\s+fix: set SLUICE_PUBLIC_URL/);
  });
});

for (const dialect of DIALECTS) {
  describe(`sluice doctor on the database [${dialect}]`, () => {
    const databases: TestDatabase[] = [];
    after(async () => {
      for (const database of databases) await database.drop();
    });
    const envOf = (database: TestDatabase) => ({
      SLUICE_DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl, SLUICE_SECRET_KEY: TEST_SECRET_KEY } : {}),
    });

    it("accepts a current database, and fails one a newer release migrated", async () => {
      const database = await createTestDatabase(dialect);
      databases.push(database);
      const store = await openStore({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, logger: pino({ level: "silent" }) });
      try {
        const current = await doctor(envOf(database));
        assert.match(lineOf(current.out, "database"), /^ok .*schema up to date/);
        await (store.db as any)
          .insertInto("kysely_migration")
          .values({ name: "999-from-the-future", timestamp: new Date().toISOString() })
          .execute();
      } finally {
        await store.close();
      }
      const newer = await doctor(envOf(database));
      assert.equal(newer.code, 1, newer.out);
      assert.match(
        lineOf(newer.out, "database"),
        /^FAIL .*migrations this release does not know \(999-from-the-future\)[^\n]*\n\s+fix: run that newer release, or restore a backup made with this one$/,
      );
    });
  });
}

describe("doctor's Node check", () => {
  it("accepts the releases Sluice and its npm support, and names the others", () => {
    for (const version of ["v20.17.0", "v20.20.2", "v22.9.0", "v22.23.3", "v24.0.0", "v24.21.0", "v26.1.0"])
      assert.equal(nodeCheck(version).status, "ok", version);
    for (const version of ["v18.20.4", "v20.11.1", "v22.8.0", "v21.7.3", "v23.11.0"])
      assert.equal(nodeCheck(version).status, "fail", version);
  });
});
