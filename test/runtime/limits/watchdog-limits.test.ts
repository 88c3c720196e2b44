// The fallback forced on: the watchdog reads each runner's process tree in /proc, kills the
// whole tree past the memory limit, and CPU time comes from /proc as well. It needs only
// /proc, so it runs on any Linux machine.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { createMemoryWatchdog } from "../../../src/runtime/limits/memory-watchdog.js";
import { findExecutable } from "../../../src/runtime/limits/open-files.js";
import { createRunnerLimits } from "../../../src/runtime/limits/runner-limits.js";
import { readableCopy } from "../../helpers/readable-copy.js";
import { allocate, busy, BWRAP, bwrapUnavailable, cleanUp, gone, idle, startRunner, until, type Runner } from "./runners.js";

const MEMORY_MB = 96;

/** A parent that starts the allocating child and waits: the limit is on the pair. */
const parentOf = (child: string) => `
  const c = require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(child)}], { stdio: "inherit" });
  console.log("child " + c.pid);
  setInterval(() => {}, 1000);`;

describe("runner limits with the watchdog forced", () => {
  const limits = createRunnerLimits({
    memoryMb: MEMORY_MB,
    maxThreads: 32,
    maxOpenFiles: 256,
    mechanism: "watchdog",
    watchdogIntervalMs: 100,
  });
  const started: Runner[] = [];
  const start = (code: string, sandbox?: string[]) => {
    const runner = startRunner(limits, code, sandbox);
    started.push(runner);
    return runner;
  };
  after(async () => {
    await cleanUp(started);
    await limits.close();
  });

  it("says so", () => {
    console.log(`# ${limits.description}`);
    assert.equal(limits.mechanisms.memory, "watchdog");
    assert.equal(limits.mechanisms.threads, "none");
    assert.equal(limits.mechanisms.cpu, "proc");
    assert.match(limits.description, /watchdog/);
    assert.match(limits.notes.join(" "), /forced/);
  });

  it("a grandchild keeping Buffers up to 4× the limit gets the whole tree killed, and exitedForMemory() says so", async () => {
    const runner = start(parentOf(allocate(4 * MEMORY_MB)));
    await runner.handle.ready;
    assert.equal(runner.handle.memoryMechanism, "watchdog");
    await until(() => /child \d+/.test(runner.output()), "the parent started its child");
    const childPid = Number(/child (\d+)/.exec(runner.output())![1]);
    runner.go();
    const { signal } = await runner.exit;
    assert.equal(signal, "SIGKILL");
    assert.equal(runner.handle.exitedForMemory(), true);
    await until(() => gone(childPid), "the allocating child is killed too");
  });

  it("a runner in bwrap (bwrap → bwrap → node) is killed as a whole tree", async (t) => {
    const why = bwrapUnavailable();
    if (why) return t.skip(why);
    const runner = start(allocate(4 * MEMORY_MB), BWRAP);
    runner.go(); // read once node in bwrap has started
    await runner.exit;
    assert.equal(runner.handle.exitedForMemory(), true);
  });

  it("cpuMs() grows for a busy runner and not for an idle one, which the watchdog leaves alone", async () => {
    const spinning = start(busy);
    const resting = start(idle);
    await until(() => resting.output().includes("idle"), "the idle runner has started");
    const restingFrom = resting.handle.cpuMs();
    const spinningFrom = spinning.handle.cpuMs();
    spinning.go();
    await until(() => spinning.handle.cpuMs() - spinningFrom >= 300, "the busy runner used 300 ms of CPU");
    assert.ok(resting.handle.cpuMs() - restingFrom < 30, `idle runner used ${resting.handle.cpuMs() - restingFrom} ms`);
    assert.equal(gone(resting.child.pid!), false);
    assert.equal(resting.handle.exitedForMemory(), false);
  });

  it("costs little per runner per round (figure printed)", async () => {
    const runners = [start(idle), start(idle), start(idle), start(idle)];
    await until(() => runners.every((r) => r.output().includes("idle")), "the runners have started");
    // Its own instance, run by hand: the figure is for the reads alone.
    const watchdog = createMemoryWatchdog({
      limitBytes: 2 ** 40,
      intervalMs: 60_000,
      procRoot: "/proc",
      pageSize: 4096,
      kill: () => assert.fail("nothing is killed"),
      timers: { setInterval, clearInterval },
    });
    for (const runner of runners) watchdog.watch(runner.child.pid!, () => undefined);
    const rounds = 200; // as many rounds reading all threads as in service (one in ten)
    const startedAt = performance.now();
    for (let i = 0; i < rounds; i++) watchdog.tick();
    const perRunnerUs = ((performance.now() - startedAt) * 1000) / rounds / runners.length;
    watchdog.close();
    console.log(`# watchdog: ${perRunnerUs.toFixed(1)} µs per runner per round (idle Node runners of about ten threads each)`);
    assert.ok(perRunnerUs < 2000, `${perRunnerUs} µs`);
  });

  it("a service without privileges falls back to the watchdog by itself, and the notes say why", (t) => {
    if (process.getuid?.() !== 0) return t.skip("starting the probe as another user needs root");
    const setpriv = findExecutable("setpriv", process.env.PATH ?? "");
    if (!setpriv) return t.skip("setpriv (util-linux) is not installed");
    // A copy uid 65534 can read: the checkout may sit in a folder only root can enter.
    const app = readableCopy(["src/runtime/limits", "src/runtime/process-alive.js"]);
    t.after(() => app.close());
    const probe = `const { createRunnerLimits } = await import(${JSON.stringify(app.url("src/runtime/limits/runner-limits.js"))});
      const limits = createRunnerLimits({ memoryMb: 64, maxThreads: 32, maxOpenFiles: 64 });
      console.log(JSON.stringify({ mechanisms: limits.mechanisms, notes: limits.notes }));
      await limits.close();`;
    const result = spawnSync(
      setpriv,
      ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "--input-type=module", "-e", probe],
      { encoding: "utf8", cwd: "/" },
    );
    assert.equal(result.status, 0, result.stderr);
    const { mechanisms, notes } = JSON.parse(result.stdout) as { mechanisms: { memory: string }; notes: string[] };
    console.log(`# as uid 65534: ${notes.join("; ")}`);
    assert.equal(mechanisms.memory, "watchdog");
    assert.ok(notes.length > 0);
  });

  it("without /proc (not Linux) nothing is held, and the description says so", async () => {
    const bare = createRunnerLimits({
      memoryMb: MEMORY_MB,
      maxThreads: 32,
      maxOpenFiles: 256,
      procRoot: "/nonexistent-proc",
      searchPath: "",
    });
    assert.deepEqual(bare.mechanisms, { memory: "none", threads: "none", cpu: "none", openFiles: "none" });
    assert.match(
      bare.description,
      /^memory not capped beyond the V8 heap; threads not capped; CPU time not measured; open files not capped \(no prlimit\); no oom_score_adj$/,
    );
    const handle = bare.attach(process.pid);
    await handle.ready;
    assert.equal(handle.memoryMechanism, "none");
    assert.equal(handle.cpuMs(), 0);
    assert.equal(handle.exitedForMemory(), false);
    await handle.stop();
    await bare.close();
  });
});
