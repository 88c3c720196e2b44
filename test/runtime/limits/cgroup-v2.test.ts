// The cgroup v2 logic against a stand-in kernel (fake-cgroup2.ts): which files the probe
// and a runner's cgroup write, what they read back, and when v2 is given up, with the reason
// in the notes. The runners are real processes; only the cgroup file system is a stand-in,
// so no limit is enforced here: cgroup-limits.test.ts checks that on the machine's kernel.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { createRunnerLimits } from "../../../src/runtime/limits/runner-limits.js";
import { createFakeCgroup2 } from "./fake-cgroup2.js";
import { cleanUp, idle, startRunner, type Runner } from "./runners.js";

const options = { memoryMb: 64, maxThreads: 32, maxOpenFiles: 256, serviceFolder: "sluice-test" };

describe("cgroup v2 (stand-in kernel)", () => {
  const started: Runner[] = [];
  after(() => cleanUp(started));

  /** A delegated subtree as systemd makes it (Delegate=yes, DelegateSubgroup=service). */
  function delegatedSubtree() {
    const fake = createFakeCgroup2("/cg");
    fake.add("/cg", { controllers: ["cpu", "memory", "pids"], subtree: ["memory", "pids"] });
    fake.add("/cg/sluice.service", { controllers: ["memory", "pids"] });
    fake.add("/cg/sluice.service/service", { controllers: [], procs: [process.pid] });
    return fake;
  }

  it("runners get a cgroup with memory.max, no swap, a group OOM kill and pids.max; CPU and OOM kills are read from it; all is removed", async () => {
    const fake = delegatedSubtree();
    const limits = createRunnerLimits({ ...options, cgroupFs: fake.fs, delegatedCgroup: "/cg/sluice.service" });
    assert.deepEqual(limits.notes, []);
    assert.deepEqual(
      { ...limits.mechanisms, openFiles: undefined },
      { memory: "cgroup-v2", threads: "cgroup-v2", cpu: "cgroup-v2", openFiles: undefined },
    );
    assert.match(limits.description, /cgroup v2 under \/cg\/sluice.service\/sluice-test/);
    assert.ok(fake.writes.includes("/cg/sluice.service/sluice-test/probe/memory.max=67108864"), "the probe tried the real limit");
    assert.equal(fake.folder("/cg/sluice.service/sluice-test/probe"), undefined, "and removed its trial cgroup");

    const runner = startRunner(limits, idle);
    started.push(runner);
    await runner.handle.ready;
    const folder = `/cg/sluice.service/sluice-test/runner-${runner.child.pid}-1`;
    assert.deepEqual(runner.handle.cgroupFolders, [folder]);
    const files = fake.folder(folder)!.files;
    assert.deepEqual(
      ["memory.max", "memory.swap.max", "memory.oom.group", "pids.max"].map((name) => files.get(name)),
      [String(64 * 1024 * 1024), "0", "1", "32"],
    );
    assert.ok(fake.folder(folder)!.procs.has(runner.child.pid!), "the runner was moved in");

    fake.set(`${folder}/cpu.stat`, "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567");
    assert.equal(runner.handle.cpuMs(), 1234.567);
    assert.equal(runner.handle.exitedForMemory(), false);
    fake.set(`${folder}/memory.events`, "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 1");
    assert.equal(runner.handle.exitedForMemory(), true);

    await runner.handle.stop();
    assert.ok(fake.writes.includes(`${folder}/cgroup.kill=1`), "what was left inside is killed");
    assert.equal(fake.folder(folder), undefined);
    assert.equal(runner.handle.exitedForMemory(), true, "known after removal");
    assert.equal(runner.handle.cpuMs(), 1234.567, "known after removal");
    await limits.close();
    assert.equal(fake.folder("/cg/sluice.service/sluice-test"), undefined);
  });

  it("a runner whose cgroup cannot be made is watched instead", async () => {
    const fake = delegatedSubtree();
    const limits = createRunnerLimits({ ...options, cgroupFs: fake.fs, delegatedCgroup: "/cg/sluice.service" });
    fake.fs.rmdir("/cg/sluice.service/sluice-test"); // removed by someone else
    const runner = startRunner(limits, idle);
    started.push(runner);
    await runner.handle.ready;
    assert.equal(runner.handle.memoryMechanism, "watchdog");
    assert.deepEqual(runner.handle.cgroupFolders, []);
    assert.ok(runner.handle.cpuMs() >= 0, "CPU time then comes from /proc");
    await cleanUp([runner]);
    await limits.close();
  });

  it("a cgroup with processes in it cannot give memory to child cgroups: the note says why and what to do", async () => {
    const fake = createFakeCgroup2("/cg");
    fake.add("/cg", { controllers: ["memory", "pids"], subtree: ["memory", "pids"] });
    fake.add("/cg/sluice.service", { controllers: ["memory", "pids"], procs: [process.pid] });
    const limits = createRunnerLimits({ ...options, cgroupFs: fake.fs, delegatedCgroup: "/cg/sluice.service" });
    assert.match(
      limits.notes[0]!,
      /^cgroup v2 \(\/cg\/sluice.service\): cannot give memory to child cgroups \(EBUSY\); processes run in it/,
    );
    // The stand-in has no v1 hierarchies either.
    assert.equal(limits.mechanisms.memory, "watchdog");
    assert.ok(
      limits.notes.some((note) => note.startsWith("cgroup v1 memory")),
      limits.notes.join("\n"),
    );
    await limits.close();
  });

  it("without the memory controller v2 is not used, and the note lists what there is", async () => {
    const fake = createFakeCgroup2("/cg");
    fake.add("/cg", { controllers: ["hugetlb"] });
    const limits = createRunnerLimits({ ...options, cgroupFs: fake.fs, delegatedCgroup: "/cg" });
    assert.equal(limits.notes[0], "cgroup v2 (/cg): no memory controller (available: hugetlb)");
    assert.equal(limits.mechanisms.memory, "watchdog");
    await limits.close();
  });

  it("without the pids controller, memory is held and threads are said not to be capped", async () => {
    const fake = createFakeCgroup2("/cg");
    fake.add("/cg", { controllers: ["memory"] });
    const limits = createRunnerLimits({ ...options, cgroupFs: fake.fs, delegatedCgroup: "/cg" });
    assert.equal(limits.mechanisms.memory, "cgroup-v2");
    assert.equal(limits.mechanisms.threads, "none");
    assert.match(limits.description, /threads not capped/);
    assert.deepEqual(limits.notes, ["cgroup v2 (/cg): no pids controller, threads are not capped"]);
    await limits.close();
  });

  it("folders left by a killed service are removed at start, unless a process still runs in them", async () => {
    const fake = delegatedSubtree();
    // A pid that certainly belonged to a process that has exited: the killed service.
    const dead = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString());
    const parent = "/cg/sluice.service";
    fake.fs.write(`${parent}/cgroup.subtree_control`, "+memory +pids");
    for (const folder of [
      `sluice-${dead}-abc123`,
      `sluice-${dead}-abc123/runner-5-1`,
      `sluice-${dead}-def456`,
      `sluice-${process.ppid}-aaaaaa`,
      "someone-elses",
    ])
      fake.fs.mkdir(`${parent}/${folder}`);
    fake.add(`${parent}/sluice-${dead}-def456/runner-6-1`, { controllers: ["memory", "pids"], procs: [424242] });
    const limits = createRunnerLimits({ ...options, cgroupFs: fake.fs, delegatedCgroup: parent });
    assert.deepEqual(
      fake.fs.list(parent).sort(),
      [`sluice-${dead}-def456`, `sluice-${process.ppid}-aaaaaa`, "service", "sluice-test", "someone-elses"].sort(),
    );
    assert.deepEqual(fake.fs.list(`${parent}/sluice-${dead}-def456`), ["runner-6-1"], "a cgroup with a process in it stays");
    await limits.close();
  });
});
