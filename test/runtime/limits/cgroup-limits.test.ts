// Runner limits held by a cgroup of this machine's kernel (v2 if it offers one with the
// memory controller, else v1): real processes killed for memory, refused threads, CPU time
// counted, cgroups removed. Skipped, saying why, where no cgroup can be used.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { after, describe, it } from "node:test";
import { createRunnerLimits, type RunnerLimits } from "../../../src/runtime/limits/runner-limits.js";
import {
  allocate,
  busy,
  BWRAP,
  bwrapUnavailable,
  cleanUp,
  gone,
  idle,
  leaveSleepBehind,
  startRunner,
  startThreads,
  until,
  type Runner,
} from "./runners.js";

const MEMORY_MB = 96;
const MAX_THREADS = 32;

describe("runner limits with a cgroup", () => {
  const limits = createRunnerLimits({ memoryMb: MEMORY_MB, maxThreads: MAX_THREADS, maxOpenFiles: 256 });
  const started: Runner[] = [];
  const start = (code: string, sandbox?: string[], on: RunnerLimits = limits) => {
    const runner = startRunner(on, code, sandbox);
    started.push(runner);
    return runner;
  };
  after(async () => {
    await cleanUp(started);
    await limits.close();
  });
  const noCgroup = limits.mechanisms.memory === "watchdog" ? `no usable cgroup on this machine: ${limits.notes.join("; ")}` : undefined;

  it("says which mechanism is in force", () => {
    console.log(`# ${limits.description}`);
    for (const note of limits.notes) console.log(`# note: ${note}`);
    assert.match(limits.description, /memory ≤ 96 MB/);
  });

  it("cgroup v2 is used where the kernel lets it hold runners", (t) => {
    if (limits.mechanisms.memory !== "cgroup-v2") {
      const why = limits.notes.filter((note) => note.startsWith("cgroup v2")).join("; ") || "not offered";
      return t.skip(
        `cgroup v2 cannot hold runners on this machine (${why}): the kernel tests here use ${limits.mechanisms.memory}; cgroup-v2.test.ts covers the v2 logic against a stand-in`,
      );
    }
    assert.equal(limits.mechanisms.threads, "cgroup-v2");
  });

  it(`a child keeping Buffers up to 4× the limit is killed by the kernel, and exitedForMemory() says so (${limits.mechanisms.memory})`, async (t) => {
    if (noCgroup) return t.skip(noCgroup);
    const runner = start(allocate(4 * MEMORY_MB));
    await runner.handle.ready;
    assert.equal(runner.handle.memoryMechanism, limits.mechanisms.memory);
    assert.equal(runner.handle.exitedForMemory(), false);
    runner.go();
    const { signal } = await runner.exit;
    assert.equal(signal, "SIGKILL");
    assert.doesNotMatch(runner.output(), /allocated/);
    assert.equal(runner.handle.exitedForMemory(), true);
    await runner.handle.stop();
    assert.equal(runner.handle.exitedForMemory(), true, "still known once the cgroup is removed");
  });

  it("a runner killed otherwise did not exit for memory", async (t) => {
    if (noCgroup) return t.skip(noCgroup);
    const runner = start(idle);
    await runner.handle.ready;
    runner.child.kill("SIGKILL");
    await runner.exit;
    assert.equal(runner.handle.exitedForMemory(), false);
  });

  it("a runner in bwrap (bwrap → bwrap → node) is held as a whole tree", async (t) => {
    if (noCgroup) return t.skip(noCgroup);
    const why = bwrapUnavailable();
    if (why) return t.skip(why);
    const runner = start(allocate(4 * MEMORY_MB), BWRAP);
    await runner.handle.ready;
    runner.go();
    await runner.exit;
    assert.doesNotMatch(runner.output(), /allocated/);
    assert.equal(runner.handle.exitedForMemory(), true);
  });

  it("threads past maxThreads are refused", async (t) => {
    if (noCgroup) return t.skip(noCgroup);
    if (limits.mechanisms.threads === "none") return t.skip(`threads are not capped here: ${limits.notes.join("; ")}`);
    // Each worker thread has its own V8 heap: room for them, so that memory is not what stops them.
    const roomy = createRunnerLimits({ memoryMb: 1024, maxThreads: MAX_THREADS, maxOpenFiles: 256 });
    const runner = start(startThreads(2 * MAX_THREADS), undefined, roomy);
    await runner.handle.ready;
    runner.go();
    await until(() => runner.output().includes("started"), "the child reports its threads");
    await cleanUp([runner]);
    await roomy.close();
    const { started: made, failure } = JSON.parse(runner.output()) as { started: number; failure: string | null };
    assert.ok(failure, `a thread was refused (started ${made})`);
    assert.ok(made < MAX_THREADS, `${made} worker threads started`);
  });

  it("cpuMs() grows for a busy runner and not for an idle one", async (t) => {
    if (noCgroup) return t.skip(noCgroup);
    const spinning = start(busy);
    const resting = start(idle);
    await Promise.all([spinning.handle.ready, resting.handle.ready]);
    await until(() => resting.output().includes("idle"), "the idle runner has started");
    const restingFrom = resting.handle.cpuMs();
    const spinningFrom = spinning.handle.cpuMs();
    spinning.go();
    await until(() => spinning.handle.cpuMs() - spinningFrom >= 300, "the busy runner used 300 ms of CPU");
    assert.ok(resting.handle.cpuMs() - restingFrom < 30, `idle runner used ${resting.handle.cpuMs() - restingFrom} ms`);
  });

  it("runners get oom_score_adj 1000, in bwrap too", async (t) => {
    const plain = start(idle);
    await plain.handle.ready;
    assert.equal(readFileSync(`/proc/${plain.child.pid}/oom_score_adj`, "utf8").trim(), "1000");
    const why = bwrapUnavailable();
    if (why) return t.skip(`bwrap part: ${why}`);
    const sandboxed = start(idle, BWRAP);
    await until(() => sandboxed.output().includes("idle"), "node in bwrap has started");
    const init = readFileSync(`/proc/${sandboxed.child.pid}/task/${sandboxed.child.pid}/children`, "utf8").trim();
    const node = readFileSync(`/proc/${init}/task/${init}/children`, "utf8").trim();
    assert.equal(readFileSync(`/proc/${node}/oom_score_adj`, "utf8").trim(), "1000", "node inside bwrap");
  });

  it("stop() kills what is left of the tree and removes the cgroup; close() removes the service's folders", async (t) => {
    if (noCgroup) return t.skip(noCgroup);
    const own = createRunnerLimits({ memoryMb: MEMORY_MB, maxThreads: MAX_THREADS, maxOpenFiles: 256 });
    // The runner exits at once, leaving a grandchild behind (reparented, still in the cgroup).
    const runner = start(leaveSleepBehind, undefined, own);
    await runner.handle.ready;
    const folders = runner.handle.cgroupFolders;
    assert.ok(folders.length > 0);
    for (const folder of folders) assert.ok(existsSync(folder), folder);
    runner.go();
    await runner.exit;
    const leftBehind = readFileSync(`${folders[0]}/cgroup.procs`, "utf8").trim().split("\n").filter(Boolean).map(Number);
    assert.equal(leftBehind.length, 1, "the sleep is still in the cgroup");
    await runner.handle.stop();
    for (const folder of folders) assert.equal(existsSync(folder), false, folder);
    await until(() => gone(leftBehind[0]!), "the sleep left behind is killed");
    await own.close();
    for (const folder of folders) assert.equal(existsSync(dirname(folder)), false, dirname(folder));
  });
});
