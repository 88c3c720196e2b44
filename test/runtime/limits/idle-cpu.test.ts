// Idle CPU: what a runner burns while no execution is in it is reported, and only that.
// First against a CPU figure set by hand, then with a real runner whose timer keeps burning
// CPU after its execution ended.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createIdleCpuSampler } from "../../../src/runtime/limits/idle-cpu.js";
import { createRunnerLimits } from "../../../src/runtime/limits/runner-limits.js";
import { burnAfterGo, cleanUp, idle, startRunner, until, type Runner } from "./runners.js";

function handTimers() {
  const timers = { started: 0, cleared: 0, tick: undefined as (() => void) | undefined };
  return {
    timers,
    options: {
      setInterval: (fn: () => void) => {
        timers.started++;
        timers.tick = fn;
        return { unref() {} } as unknown as NodeJS.Timeout;
      },
      clearInterval: () => void timers.cleared++,
    },
  };
}

describe("idle CPU sampler", () => {
  it("reports CPU an idle runner used from one sample to the next, never while busy, and marks read nothing", () => {
    const { timers, options } = handTimers();
    const sampler = createIdleCpuSampler({ intervalMs: 1000, timers: options });
    let cpu = 40; // starting up
    let reads = 0;
    const reported: number[] = [];
    const meter = sampler.track({ cpuMs: () => (reads++, cpu) }, (delta) => reported.push(delta));
    timers.tick!();
    assert.deepEqual(reported, [], "a new runner is busy until marked idle");
    meter.idle();
    meter.busy();
    meter.idle();
    assert.equal(reads, 0, "marking busy and idle reads no CPU figure");
    cpu = 100;
    timers.tick!(); // the spell's first sample: its baseline
    cpu = 150;
    timers.tick!();
    timers.tick!(); // nothing more used
    cpu = 170;
    meter.busy(); // the 20 ms since the last sample are not counted
    cpu = 900; // an execution: not idle CPU
    timers.tick!();
    meter.idle();
    timers.tick!();
    cpu = 905;
    timers.tick!();
    assert.deepEqual(reported, [50, 5]);
    assert.equal(meter.idleCpuMs(), 55);
    meter.untrack();
    assert.equal(timers.cleared, 1, "no timer is left once no runner is tracked");
    sampler.close();
  });

  it("one timer serves every runner", () => {
    const { timers, options } = handTimers();
    const sampler = createIdleCpuSampler({ timers: options });
    const a = sampler.track({ cpuMs: () => 0 }, () => undefined);
    const b = sampler.track({ cpuMs: () => 0 }, () => undefined);
    assert.equal(timers.started, 1);
    a.untrack();
    assert.equal(timers.cleared, 0);
    b.untrack();
    assert.equal(timers.cleared, 1);
    sampler.close();
  });

  describe("with real runners", () => {
    const limits = createRunnerLimits({ memoryMb: 256, maxThreads: 64, maxOpenFiles: 256 });
    const sampler = createIdleCpuSampler({ intervalMs: 100 });
    const started: Runner[] = [];
    after(async () => {
      sampler.close();
      await cleanUp(started);
      await limits.close();
    });

    it(`a timer left burning after an execution is counted as idle CPU; a quiet runner's is not (${limits.mechanisms.cpu})`, async () => {
      const burning = startRunner(limits, burnAfterGo);
      const quiet = startRunner(limits, idle);
      started.push(burning, quiet);
      await Promise.all([burning.handle.ready, quiet.handle.ready]);
      await until(() => quiet.output().includes("idle"), "the quiet runner has started");
      let burnt = 0;
      let quietIdle = 0;
      const burningMeter = sampler.track(burning.handle, (delta) => (burnt += delta));
      const quietMeter = sampler.track(quiet.handle, (delta) => (quietIdle += delta));
      // The execution: "go" starts the timer, and its end leaves the runner idle.
      burningMeter.busy();
      burning.go();
      burningMeter.idle();
      quietMeter.idle();
      await until(() => burnt >= 200, "200 ms of idle CPU reported");
      assert.equal(burningMeter.idleCpuMs(), burnt);
      assert.ok(quietIdle < 30, `the quiet runner: ${quietIdle} ms`);
      burningMeter.untrack();
      quietMeter.untrack();
    });
  });
});
