// Runner cold start in each sandbox mode: the first execution of a new account (a runner
// process started for it, the component loaded, run, answered), measured in turns so that both
// modes see the same machine. Against it, `node -e 0` with an empty environment: the floor.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { createComponentRunner, runnerSettings } from "../src/runtime/component-runner.js";
import { chooseSandbox, type SandboxMode } from "../src/runtime/sandbox/choose-sandbox.js";
import { ascending, percentile } from "./lib/percentile.js";

export interface ColdStartReport {
  nodeFloor: { p50Ms: number; p99Ms: number };
  modes: Partial<Record<SandboxMode, { p50Ms: number; p99Ms: number; warmMs: number }>>;
  samples: number;
}

const CODE = `export default { run(event) { this.$emit(event); } };`;

export async function runColdStartBench(samples = Number(process.env.BENCH_COLD_STARTS ?? 40)): Promise<ColdStartReport> {
  const floor: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    spawnSync(process.execPath, ["-e", "0"], { env: {} });
    floor.push(performance.now() - started);
  }
  const modes: SandboxMode[] = chooseSandbox("auto").mode === "bwrap" ? ["none", "bwrap"] : ["none"];
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-bench-cold-"));
  const runners = modes.map((mode) =>
    createComponentRunner(runnerSettings({ ...loadConfig({}), dataDir: join(dataDir, mode) }, chooseSandbox(mode))),
  );
  const times = modes.map(() => [] as number[]);
  const warm = modes.map(() => [] as number[]);
  try {
    for (let i = 0; i < samples; i++) {
      for (const [m, runner] of runners.entries()) {
        const userId = `u_cold${i}`;
        // The module is written before the timing: the figure is the process, not the file.
        await runner.modules.prepare({ userId, code: CODE });
        const started = performance.now();
        const result = await runner.execute({
          userId,
          code: CODE,
          entry: "run",
          event: { i },
          props: {},
          state: {},
          context: { sourceId: "dc_bench" },
        });
        times[m]!.push(performance.now() - started);
        if (result.error) throw new Error(`cold start failed: ${result.error.message}`);
        const again = performance.now();
        await runner.execute({ userId, code: CODE, entry: "run", event: { i }, props: {}, state: {}, context: { sourceId: "dc_bench" } });
        warm[m]!.push(performance.now() - again);
      }
    }
  } finally {
    await Promise.all(runners.map((runner) => runner.close()));
    rmSync(dataDir, { recursive: true, force: true });
  }
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const summary = (values: number[]) => ({
    p50Ms: round(percentile(ascending(values), 50)),
    p99Ms: round(percentile(ascending(values), 99)),
  });
  return {
    samples,
    nodeFloor: summary(floor),
    modes: Object.fromEntries(
      modes.map((mode, m) => [mode, { ...summary(times[m]!), warmMs: round(percentile(ascending(warm[m]!), 50)) }]),
    ),
  };
}
