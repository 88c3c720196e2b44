// The OS sandbox as a boundary of its own: what holds when user code gets past the in-process
// layers (here the egress guard is deliberately left out of the runner), and what the runner
// channel does with messages user code forges.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createComponentRunner, type ComponentRunner } from "../../src/runtime/component-runner.js";
import type { ExecuteResult } from "../../src/runtime/code-runner.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";
import { BWRAP_SKIP, SANDBOX_MODES } from "../helpers/sandbox-modes.js";

function runnerFor(runner: ComponentRunner, userId: string) {
  return (code: string, timeoutMs = 10_000): Promise<ExecuteResult> =>
    runner.execute({ userId, code, entry: "run", event: {}, props: {}, state: {}, context: { sourceId: "dc_os" }, timeoutMs });
}

/** Emits what the body returns, or the error code it threw. */
const attempt = (body: string) =>
  `module.exports = { async run() { try { this.$emit(await (async () => { ${body} })()); } catch (e) { this.$emit("ERR:" + String(e && (e.code || e.message))); } } };`;

describe("the OS sandbox without the in-process egress guard", { skip: BWRAP_SKIP }, () => {
  let dataDir: string;
  let runner: ComponentRunner;
  let loopback: Server;
  let port: number;
  let reached = 0;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "sluice-os-sandbox-"));
    runner = createComponentRunner(testRunnerSettings(dataDir, { runTimeoutSeconds: 10, withoutInProcessGuard: true }, "bwrap"));
    loopback = createServer((socket) => {
      reached++;
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecret");
    });
    await new Promise<void>((resolve) => loopback.listen(0, "127.0.0.1", resolve));
    port = (loopback.address() as AddressInfo).port;
  });
  after(async () => {
    loopback.close();
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a connection to a loopback listener of the host still fails: the runner's loopback is its own", async () => {
    const run = runnerFor(runner, "u_unguarded");
    const result = await run(
      attempt(
        `return await new Promise((ok, fail) => require("net").connect(${port}, "127.0.0.1").on("connect", () => ok("CONNECTED")).on("error", fail));`,
      ),
    );
    assert.equal(result.error, undefined);
    assert.deepEqual(
      result.emits.map((e) => e.event),
      ["ERR:ECONNREFUSED"],
    );
    const viaFetch = await run(attempt(`return await (await fetch("http://127.0.0.1:${port}/")).text();`));
    assert.notEqual(viaFetch.emits[0]?.event, "secret");
    assert.equal(reached, 0, "nothing reached the host's loopback server");
  });

  it("a server user code leaves listening is unreachable from the host", async () => {
    const run = runnerFor(runner, "u_listener");
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const freePort = (free.address() as AddressInfo).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const result = await run(
      attempt(
        `const server = require("net").createServer((s) => s.end("inside")); await new Promise((ok) => server.listen(${freePort}, "0.0.0.0", ok)); return "LISTENING";`,
      ),
    );
    assert.deepEqual(
      result.emits.map((e) => e.event),
      ["LISTENING"],
    );
    const outcome = await new Promise<string>((resolve) => {
      const socket = createConnection(freePort, "127.0.0.1");
      socket.on("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(String(error.code)));
    });
    assert.equal(outcome, "ECONNREFUSED");
  });

  it("the runner is an unprivileged user on a host of its own, with an environment of only its HOME (its /tmp)", async () => {
    const run = runnerFor(runner, "u_identity");
    const result = await run(
      attempt(`const os = require("os"); return { host: os.hostname(), uid: process.getuid(), pid: process.pid, env: process.env };`),
    );
    const seen = result.emits[0]?.event as { host: string; uid: number; pid: number; env: Record<string, string> };
    assert.equal(seen.host, "sluice-runner");
    if (process.getuid?.() === 0) assert.equal(seen.uid, 65534, "a root service's runner is not root");
    assert.ok(seen.pid < 10, `its own pid namespace (pid ${seen.pid})`);
    assert.deepEqual(seen.env, { HOME: "/tmp" });
  });
});

for (const { mode, skip } of SANDBOX_MODES) {
  describe(`user code's own temp folder and the runner channel [sandbox ${mode}]`, { skip }, () => {
    let dataDir: string;
    let runner: ComponentRunner;

    before(() => {
      dataDir = mkdtempSync(join(tmpdir(), "sluice-os-sandbox-"));
      runner = createComponentRunner(testRunnerSettings(dataDir, { runTimeoutSeconds: 10 }, mode));
    });
    after(async () => {
      await runner.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("user code writes to its own temp folder, which no other runner and not the host sees", async () => {
      const name = `sluice-private-${process.pid}-${Date.now()}`;
      const write = attempt(
        `const fs = require("fs"), path = require("path"); const file = path.join(require("os").tmpdir(), ${JSON.stringify(name)}); fs.writeFileSync(file, "mine"); return fs.readFileSync(file, "utf8");`,
      );
      const read = attempt(
        `return require("fs").readFileSync(require("path").join(require("os").tmpdir(), ${JSON.stringify(name)}), "utf8");`,
      );
      const written = await runnerFor(runner, "u_writer")(write);
      assert.deepEqual(
        written.emits.map((e) => e.event),
        ["mine"],
      );
      const other = await runnerFor(runner, "u_reader")(read);
      assert.match(String(other.emits[0]?.event), /^ERR:/, "another account's runner does not see the file");
      assert.equal(existsSync(join("/tmp", name)), false, "the host's /tmp does not hold it");
    });

    it("messages user code forges on the runner channel end that runner only; the service carries on", async () => {
      const run = runnerFor(runner, "u_forger");
      // File descriptor 3 is the channel; user code can write to it like to any descriptor.
      const forge = (line: string) =>
        `module.exports = { async run() { require("fs").writeSync(3, ${JSON.stringify(line)}); await new Promise((r) => setTimeout(r, 2000)); this.$emit("not stopped"); } };`;
      const lines = [
        ...Array.from({ length: 40 }, (_, id) => JSON.stringify({ id, type: "failed", error: null }) + "\n"),
        '{"type":"done","id":"x"}\n',
      ];
      for (const line of [lines.slice(0, 40).join(""), lines[40]!]) {
        const result = await run(forge(line));
        assert.equal(result.error?.kind, "crash", JSON.stringify(result.error));
        assert.match(result.error!.message, /the runner sent .* and was stopped/);
      }
      const big = await run(`module.exports = { async run() {
        const fs = require("fs"), chunk = Buffer.alloc(1024 * 1024, "x");
        for (let sent = 0; sent < 80 * chunk.length; ) {
          try { sent += fs.writeSync(3, chunk); } catch (e) { if (e.code !== "EAGAIN") throw e; await new Promise((r) => setTimeout(r, 1)); }
        }
        await new Promise((r) => setTimeout(r, 5000));
        this.$emit("not stopped");
      } };`);
      assert.equal(big.error?.kind, "crash");
      assert.match(big.error!.message, /over \d+ bytes/);
      const next = await run(`module.exports = { run() { this.$emit("fine"); } };`);
      assert.deepEqual(
        next.emits.map((e) => e.event),
        ["fine"],
      );
    });
  });
}
