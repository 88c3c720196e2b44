// Escape attempts from user code, each failing inside its own execution while the service
// stays healthy (GET /healthz answers and the next execution works), with and without the OS
// sandbox: what the in-process layers refuse is refused in both; with the sandbox, what the
// sandbox hides is simply not there.
import { existsSync } from "node:fs";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { ExecuteResult } from "../../src/runtime/code-runner.js";
import { DIALECTS } from "../helpers/dialects.js";
import { SANDBOX_MODES } from "../helpers/sandbox-modes.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

for (const dialect of DIALECTS)
  for (const { mode, skip } of SANDBOX_MODES) {
    describe(`runner sandbox [${dialect}, sandbox ${mode}]`, { skip }, () => {
      let app: TestApp;
      let userId: string;
      let loopback: Server;
      let loopbackPort: number;
      let loopbackConnections = 0;

      before(async () => {
        app = await startTestApp(dialect, { runTimeoutSeconds: 2, runMemoryMb: 48, allowPrivateEgress: false, sandbox: mode });
        userId = (await app.newAccount()).id;
        loopback = createServer((socket) => {
          loopbackConnections++;
          socket.end();
        });
        await new Promise<void>((resolve) => loopback.listen(0, "127.0.0.1", resolve));
        loopbackPort = (loopback.address() as AddressInfo).port;
      });
      after(async () => {
        loopback.close();
        await app.close();
      });

      const run = (code: string, options: { user?: string; timeoutMs?: number; event?: unknown } = {}): Promise<ExecuteResult> =>
        app.sluice.services.runner.execute({
          userId: options.user ?? userId,
          code,
          entry: "run",
          event: options.event ?? {},
          props: {},
          state: {},
          context: { sourceId: "dc_sandbox" },
          timeoutMs: options.timeoutMs,
        });

      /** Catches what user code tries and emits the error code (or "ESCAPED"). */
      const attempt = (body: string) =>
        `module.exports = { async run() { try { ${body}; this.$emit("ESCAPED"); } catch (e) { this.$emit(String(e && (e.code || (e.cause && e.cause.code) || e.message))); } } };`;

      async function assertHealthy(): Promise<void> {
        const health = await request(app.origin, "GET", "/healthz");
        assert.equal(health.status, 200);
        assert.deepEqual(health.body, { status: "ok", sandbox: mode });
        const next = await run(`module.exports = { run(e) { this.$emit(e.n + 1); } };`, { event: { n: 41 } });
        assert.equal(next.error, undefined);
        assert.deepEqual(
          next.emits.map((e) => e.event),
          [42],
        );
      }

      it("an infinite loop is stopped at the time limit (timeout)", async () => {
        const result = await run(`module.exports = { run() { for (;;) {} } };`, { timeoutMs: 500 });
        assert.equal(result.error?.kind, "timeout");
        assert.match(result.error!.message, /timed out after 500 ms/);
        // Stopped at its own limit, not the default 30 s. The figure also counts the wait for a
        // runner, which on a machine busy with other test files can take seconds.
        assert.ok(result.durationMs < 15_000, `${result.durationMs} ms`);
        await assertHealthy();
      });

      it("process.exit and a memory bomb end only their own execution (crash, memory)", async () => {
        const exit = await run(`module.exports = { run() { process.exit(7); } };`);
        assert.equal(exit.error?.kind, "crash");
        assert.match(exit.error!.message, /code 7/);
        await assertHealthy();
        const bomb = await run(`module.exports = { run() { const keep = []; for (;;) keep.push(new Array(1e6).fill({ x: 1 })); } };`, {
          timeoutMs: 15_000,
        });
        assert.equal(bomb.error?.kind, "memory");
        await assertHealthy();
      });

      it("a Buffer bomb of four times the memory limit is killed and recorded as memory (not only the V8 heap is capped)", async (t) => {
        if (app.sluice.services.runner.limitMechanisms.memory === "none")
          return t.skip("needs Linux's /proc or a cgroup to hold a runner's whole memory; this machine has neither");
        const bomb = await run(
          // Held for a while, as a bomb would: a watchdog (where no cgroup can be made) samples.
          `module.exports = { async run() { const keep = []; for (let i = 0; i < 4 * 48; i++) { keep.push(Buffer.alloc(1024 * 1024, 1)); await new Promise((r) => setImmediate(r)); } await new Promise((r) => setTimeout(r, 1500)); this.$emit("held " + keep.length + " MB"); } };`,
          { timeoutMs: 15_000 },
        );
        assert.deepEqual(bomb.emits, []);
        assert.equal(bomb.error?.kind, "memory", JSON.stringify(bomb.error));
        await assertHealthy();
      });

      it("a busy loop left running after run() returned is stopped, and its CPU counts as the account's compute time", async (t) => {
        if (app.sluice.services.runner.limitMechanisms.cpu === "none")
          return t.skip("needs Linux's /proc or a cgroup to measure a runner's CPU time; this machine has neither");
        const account = await app.newAccount();
        const runAs = (code: string) => run(code, { user: account.id });
        const id = `module.exports = { run() { this.$emit(globalThis.runnerId ??= Math.random()); } };`;
        const burner = await runAs(`module.exports = { run() {
        globalThis.runnerId ??= Math.random();
        setInterval(() => { const end = Date.now() + 100; while (Date.now() < end) {} }, 0);
        this.$emit(globalThis.runnerId);
      } };`);
        assert.equal(burner.error, undefined);
        const computeMs = async () => Number((await account.api.get("/users/me")).body.data.daily_compute_time_used);
        // The runner burns ~1 core while idle: past the 2 s budget it is replaced, and what it
        // burnt is counted.
        let counted = await computeMs();
        for (let settled = 0, deadline = Date.now() + 20_000; settled < 2;) {
          assert.ok(Date.now() < deadline, `the idle runner was not stopped (counted ${counted} ms)`);
          await new Promise((resolve) => setTimeout(resolve, 1200));
          const now = await computeMs();
          settled = now === counted && now >= 1500 ? settled + 1 : 0;
          counted = now;
        }
        assert.ok(counted >= 1500 && counted < 10_000, `counted ${counted} ms of idle compute`);
        const next = await runAs(id);
        assert.notEqual(next.emits[0]?.event, burner.emits[0]?.event, "the next execution ran in a new runner");
      });

      it("no child processes, no worker threads, no file reads outside the runner's folders", async () => {
        const dataFile = join(app.config.dataDir, "sluice.db");
        // In the sandbox a folder that is not bound in is not there at all (ENOENT).
        const hidden = mode === "bwrap" ? ["ERR_ACCESS_DENIED", "ENOENT"] : ["ERR_ACCESS_DENIED"];
        const cases: Array<[string, string[]]> = [
          [`require("child_process").execSync("id")`, ["ERR_ACCESS_DENIED"]],
          [`require("child_process").spawnSync("id")`, ["ERR_ACCESS_DENIED"]],
          [`new (require("worker_threads").Worker)("1", { eval: true })`, ["ERR_ACCESS_DENIED"]],
          [`require("fs").readFileSync("/etc/passwd")`, hidden],
          // In the sandbox the data directory's path is not there at all: runners see /sluice/... paths.
          [
            `if (require("fs").readdirSync(${JSON.stringify(app.config.dataDir)}).includes("sluice.db")) throw new Error("the database is visible")`,
            mode === "bwrap" ? ["ENOENT"] : ["ERR_ACCESS_DENIED"],
          ],
          [`require("fs").readFileSync(${JSON.stringify(dataFile)})`, hidden],
          // In the sandbox a write under /tmp lands in the runner's own tmpfs: the host's folder
          // stays untouched (checked below).
          [
            `require("fs").writeFileSync(${JSON.stringify(join(app.config.dataDir, "planted"))}, "x")`,
            mode === "bwrap" ? [...hidden, "ESCAPED"] : hidden,
          ],
        ];
        for (const [body, expected] of cases) {
          const result = await run(attempt(body));
          assert.ok(
            expected.includes(result.emits[0]?.event as string),
            `${body}: ${JSON.stringify(result.emits)} (expected one of ${expected})`,
          );
        }
        assert.equal(existsSync(join(app.config.dataDir, "planted")), false);
        await assertHealthy();
      });

      it("the constructor.constructor trick yields nothing more: no env but HOME, no bindings, no signals to other processes", async () => {
        const grab = `const p = this.constructor.constructor("return process")();`;
        const env = await run(
          `module.exports = { run() { const p = this.constructor.constructor("return process")(); this.$emit(Object.keys(p.env)); } };`,
        );
        // Only HOME (the runner's own /tmp), which os.homedir() needs: nothing of the service's environment.
        assert.deepEqual(env.emits[0]?.event, ["HOME"]);
        for (const body of [
          `${grab} p.binding("spawn_sync")`,
          `${grab} p._linkedBinding("x")`,
          `${grab} p.dlopen({}, "/x.node")`,
          `${grab} p.kill(p.ppid, "SIGTERM")`,
          `process.kill(process.ppid, "SIGKILL")`,
          `${grab} p._debugProcess(p.ppid)`,
          `require("os").setPriority(process.ppid, 19)`,
        ]) {
          const result = await run(attempt(body));
          assert.deepEqual(
            result.emits.map((e) => e.event),
            ["ERR_ACCESS_DENIED"],
            body,
          );
        }
        await assertHealthy();
      });

      it("outbound network to loopback, link-local and metadata addresses is refused by the egress guard", async () => {
        const cases = [
          `await new Promise((ok, fail) => require("net").connect(${loopbackPort}, "127.0.0.1").on("connect", ok).on("error", fail))`,
          `await new Promise((ok, fail) => require("net").connect({ port: ${loopbackPort}, host: "localhost" }).on("connect", ok).on("error", fail))`,
          `await new Promise((ok, fail) => require("http").get("http://0x7f000001:${loopbackPort}/", ok).on("error", fail))`,
          `await fetch("http://169.254.169.254/latest/meta-data/")`,
          `await fetch("http://2130706433:${loopbackPort}/")`,
          `await fetch("http://[::ffff:127.0.0.1]:${loopbackPort}/")`,
          `await new Promise((ok, fail) => require("tls").connect({ port: ${loopbackPort}, host: "127.1" }).on("secureConnect", ok).on("error", fail))`,
          `await new Promise((ok, fail) => require("net").connect({ path: "/var/run/postgresql/.s.PGSQL.5432" }).on("connect", ok).on("error", fail))`,
        ];
        for (const body of cases) {
          const result = await run(attempt(body));
          assert.deepEqual(
            result.emits.map((e) => e.event),
            ["EGRESS_REFUSED"],
            body,
          );
        }
        // UDP is refused whatever the address: the egress proxy carries no datagrams.
        const udp = await run(attempt(`require("dgram").createSocket("udp4").send("x", ${loopbackPort}, "127.0.0.1")`));
        assert.deepEqual(
          udp.emits.map((e) => e.event),
          ["EGRESS_UDP_REFUSED"],
        );
        assert.equal(loopbackConnections, 0, "nothing reached the loopback server");
        await assertHealthy();
      });

      it("one account's crash does not affect another account's execution in progress", async () => {
        const other = (await app.newAccount()).id;
        const slow = run(`module.exports = { async run() { await new Promise((r) => setTimeout(r, 300)); this.$emit("survived"); } };`, {
          user: other,
        });
        const crash = run(`module.exports = { run() { process.abort(); } };`);
        const [slowResult, crashResult] = await Promise.all([slow, crash]);
        assert.equal(crashResult.error?.kind, "crash");
        assert.equal(slowResult.error, undefined);
        assert.deepEqual(
          slowResult.emits.map((e) => e.event),
          ["survived"],
        );
        await assertHealthy();
      });

      it("runners are never shared between accounts, and one account cannot read another's module folder", async () => {
        const other = (await app.newAccount()).id;
        // A number drawn once per runner process names it (in the sandbox every runner is pid 2).
        const pid = `module.exports = { run() { this.$emit(globalThis.runnerId ??= Math.random()); } };`;
        const [mine, theirs] = await Promise.all([run(pid), run(pid, { user: other })]);
        assert.equal(typeof mine.emits[0]?.event, "number");
        assert.notEqual(mine.emits[0]?.event, theirs.emits[0]?.event);
        const theirFolder = join(app.config.dataDir, "runtime", "modules", other);
        const peek = await run(attempt(`require("fs").readdirSync(${JSON.stringify(theirFolder)})`));
        const refused = mode === "bwrap" ? ["ERR_ACCESS_DENIED", "ENOENT"] : ["ERR_ACCESS_DENIED"];
        assert.ok(refused.includes(peek.emits[0]?.event as string), JSON.stringify(peek.emits));
        const ownPath = mode === "bwrap" ? `/sluice/runtime/modules/${userId}` : join(app.config.dataDir, "runtime", "modules", userId);
        const ownFolder = await run(attempt(`require("fs").readdirSync(${JSON.stringify(ownPath)})`));
        assert.deepEqual(
          ownFolder.emits.map((e) => e.event),
          ["ESCAPED"],
          "its own folder is readable (the control)",
        );
      });

      it("errors thrown by user code come back with name, message and stack; logs are captured", async () => {
        const result = await run(
          `module.exports = { run() { console.log("a", { b: 1 }); console.error("oops"); throw new TypeError("bad thing"); } };`,
        );
        assert.equal(result.error?.kind, "error");
        assert.equal(result.error?.name, "TypeError");
        assert.equal(result.error?.message, "bad thing");
        assert.match(result.error!.stack, /TypeError: bad thing/);
        assert.deepEqual(
          result.logs.map((l) => [l.level, l.message]),
          [
            ["log", "a { b: 1 }"],
            ["error", "oops"],
          ],
        );
      });

      it("a warm execution round trip is fast (figure printed)", async () => {
        const code = `module.exports = { run(e) { this.$emit(e); } };`;
        await run(code);
        const n = 300;
        const started = performance.now();
        for (let i = 0; i < n; i++) await run(code, { event: { i } });
        const perExecution = (performance.now() - started) / n;
        console.log(
          `# warm execute() round trip: ${perExecution.toFixed(3)} ms (${Math.round(1000 / perExecution)} sequential executions/s)`,
        );
        assert.ok(perExecution < 20, `${perExecution} ms per execution`);
      });
    });
  }
