// cgroup v1 details this machine's kernel cannot show: a kernel without swap accounting, and
// one too old to count out-of-memory kills. Against a few files in memory.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CgroupFs } from "../../../src/runtime/limits/cgroup-fs.js";
import { createRunnerCgroup } from "../../../src/runtime/limits/runner-cgroup.js";

/** Folders get the v1 memory files given (the kernel's set varies with version and options). */
function v1Fs(memoryFiles: Record<string, string>) {
  const files = new Map<string, string>();
  const writes: string[] = [];
  const fs: CgroupFs = {
    read: (path) => files.get(path) ?? assert.fail(`no ${path}`),
    write(path, value) {
      if (!files.has(path)) assert.fail(`no ${path}`);
      writes.push(`${path.slice(path.lastIndexOf("/") + 1)}=${value}`);
      files.set(path, value);
    },
    writeInBackground: async (path, value) => fs.write(path, value),
    mkdir(path) {
      files.set(`${path}/cgroup.procs`, "");
      for (const [name, value] of Object.entries(memoryFiles)) files.set(`${path}/${name}`, value);
    },
    rmdir: () => undefined,
    exists: (path) => files.has(path),
    list: () => [],
  };
  return { fs, files, writes };
}

const deps = (fs: CgroupFs) => ({ fs, kill: () => undefined, delay: async () => undefined });
const layout = { version: 1 as const, memory: "/v1/memory/sluice" };
const limits = { memoryBytes: 64 << 20, maxThreads: 32 };
const current = {
  "memory.limit_in_bytes": "9223372036854771712",
  "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0",
  "memory.failcnt": "0",
  "memory.max_usage_in_bytes": "0",
};

describe("cgroup v1 runner cgroups", () => {
  it("with swap accounting: the limit, then memory+swap at the same figure (no swap)", () => {
    const { fs, writes } = v1Fs({ ...current, "memory.memsw.limit_in_bytes": "9223372036854771712", "memory.swappiness": "60" });
    createRunnerCgroup(deps(fs), layout, "r1", limits);
    // memory+swap may not be set below the memory limit (unlimited in a new cgroup): limit first.
    assert.deepEqual(writes, [`memory.limit_in_bytes=${64 << 20}`, `memory.memsw.limit_in_bytes=${64 << 20}`]);
  });

  it("without swap accounting: swappiness 0 keeps the runner's pages out of swap", () => {
    const { fs, writes } = v1Fs({ ...current, "memory.swappiness": "60" });
    createRunnerCgroup(deps(fs), layout, "r1", limits);
    assert.deepEqual(writes, [`memory.limit_in_bytes=${64 << 20}`, "memory.swappiness=0"]);
  });

  it("on kernels that do not count OOM kills (before 4.13), reaching the limit with usage at it counts as one", () => {
    const { fs, files } = v1Fs({ ...current, "memory.oom_control": "oom_kill_disable 0\nunder_oom 0" });
    const cgroup = createRunnerCgroup(deps(fs), layout, "r1", limits);
    assert.equal(cgroup.oomKilled(), false);
    files.set("/v1/memory/sluice/r1/memory.failcnt", "3");
    files.set("/v1/memory/sluice/r1/memory.max_usage_in_bytes", String(60 << 20));
    assert.equal(cgroup.oomKilled(), false, "reclaim kept it below the limit");
    files.set("/v1/memory/sluice/r1/memory.max_usage_in_bytes", String(64 << 20));
    assert.equal(cgroup.oomKilled(), true);
  });

  it("on later kernels the kill count decides", () => {
    const { fs, files } = v1Fs(current);
    const cgroup = createRunnerCgroup(deps(fs), layout, "r1", limits);
    files.set("/v1/memory/sluice/r1/memory.failcnt", "3");
    files.set("/v1/memory/sluice/r1/memory.max_usage_in_bytes", String(64 << 20));
    assert.equal(cgroup.oomKilled(), false, "the limit was reached, nothing was killed");
    files.set("/v1/memory/sluice/r1/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1");
    assert.equal(cgroup.oomKilled(), true);
  });
});
