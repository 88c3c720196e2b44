// The open-files cap: a runner started through wrapCommand gets EMFILE past maxOpenFiles
// where prlimit exists; without prlimit the command is left unchanged and the description
// says so.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createOpenFilesCap } from "../../../src/runtime/limits/open-files.js";
import { createRunnerLimits } from "../../../src/runtime/limits/runner-limits.js";
import { cleanUp, openFiles, startRunner, until, type Runner } from "./runners.js";

const MAX_OPEN_FILES = 64;

describe("open files per runner", () => {
  // The memory mechanism does not matter here: the watchdog needs nothing of the machine.
  const limits = createRunnerLimits({ memoryMb: 256, maxThreads: 64, maxOpenFiles: MAX_OPEN_FILES, mechanism: "watchdog" });
  const started: Runner[] = [];
  after(async () => {
    await cleanUp(started);
    await limits.close();
  });

  it("a runner opening files past maxOpenFiles gets EMFILE", async (t) => {
    if (limits.mechanisms.openFiles === "none") return t.skip(`open files cannot be capped here: ${limits.description}`);
    const runner = startRunner(limits, openFiles(10 * MAX_OPEN_FILES));
    started.push(runner);
    await until(() => runner.output().includes("opened"), "the child reports its files");
    const { opened, failure } = JSON.parse(runner.output()) as { opened: number; failure: string | null };
    assert.equal(failure, "EMFILE");
    assert.ok(opened < MAX_OPEN_FILES, `${opened} files opened`);
  });

  it("without prlimit the command is unchanged, and the description says so", () => {
    const cap = createOpenFilesCap(MAX_OPEN_FILES, "");
    assert.equal(cap.mechanism, "none");
    assert.match(cap.description, /not capped \(no prlimit\)/);
    assert.deepEqual(cap.wrapCommand("bwrap", ["--unshare-pid", "node"]), { command: "bwrap", args: ["--unshare-pid", "node"] });
  });
});
