// Workflow runs (docs/adr/0036-durable-workflow-runs-driven-step-by-step.md): what driving a run
// one step at a time costs, and whether a delay resumes on time with many runs paused.
// Sluice runs in its own process exactly as `npm start` runs it.
//
// Overhead per step: a 5-step workflow on an HTTP trigger, run one run at a time. Each step
// notes Date.now() when its run() starts and just before it returns (the runner's clock is the
// machine's); the overhead of step k is the start of step k minus the end of step k-1: storing
// step k-1's result, asking a runner for step k and loading it. The step's own code is excluded.
//
// Delay drift: BENCH_WORKFLOW_PAUSED runs (10,000) are first paused on a long $.flow.delay;
// then BENCH_WORKFLOW_DELAYED runs (200) delay BENCH_WORKFLOW_DELAY_MS (3,000) each, started
// every BENCH_WORKFLOW_PACE_MS (100). Drift = the start of the step after the delay − (the end of the delaying
// step + the delay). Run results are read from the database (a read-only observer).
import { call, createAccount } from "./lib/api.js";
import { openObserverDatabase } from "./lib/observer-database.js";
import { BENCH_ADMIN_TOKEN, startSluiceServer } from "./lib/processes.js";
import { ascending, percentile } from "./lib/percentile.js";
import { runDirectly } from "./lib/run-directly.js";

const TIMED_STEP = `export default { async run() { const start = Date.now(); let x = 0; for (let i = 0; i < 1000; i++) x += i; return { start, end: Date.now(), x }; } };`;
const DELAY_STEP = (ms: number) =>
  `export default { async run({ $ }) { $.flow.delay(${ms}); return { end: Date.now(), delay: ${ms} }; } };`;
const AFTER_DELAY = `export default { async run() { return { start: Date.now() }; } };`;

export interface WorkflowBenchReport {
  steps: { runs: number; gaps: number; p50Ms: number; p99Ms: number; maxMs: number; runP50Ms: number };
  delay: {
    paused: number;
    pausedInSeconds: number;
    delayed: number;
    delayMs: number;
    resumed: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
  };
}

async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

const trigger = async (endpoint: string, body: unknown) => {
  const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`trigger answered ${res.status}`);
};

export async function runWorkflowBench(
  options: { database?: string; progress?: (message: string) => void } = {},
): Promise<WorkflowBenchReport> {
  const runCount = Number(process.env.BENCH_WORKFLOW_RUNS ?? 100);
  const pausedCount = Number(process.env.BENCH_WORKFLOW_PAUSED ?? 10_000);
  const delayedCount = Number(process.env.BENCH_WORKFLOW_DELAYED ?? 200);
  const delayMs = Number(process.env.BENCH_WORKFLOW_DELAY_MS ?? 3000);
  const progress = options.progress ?? ((message: string) => console.error(message));
  const sluice = await startSluiceServer(options.database ? { DATABASE_URL: options.database } : {});
  const observer = openObserverDatabase({ dataDir: sluice.dataDir, databaseUrl: options.database });
  try {
    const key = await createAccount(sluice.url, BENCH_ADMIN_TOKEN, "bench-workflows");
    const workflow = async (steps: string[]) =>
      (await call(sluice.url, "POST", "/workflows", { key, json: { steps: steps.map((code, i) => ({ name: `s${i + 1}`, code })) } }))
        .data as {
        id: string;
        endpoint_url: string;
      };
    const stepResults = async (workflowId: string, positions: number[]) => {
      const rows = await observer.db
        .selectFrom("workflow_run_steps")
        .innerJoin("workflow_runs", "workflow_runs.id", "workflow_run_steps.run_id")
        .select([
          "workflow_run_steps.run_id",
          "workflow_run_steps.position",
          "workflow_run_steps.return_value",
          "workflow_runs.duration_ms",
        ])
        .where("workflow_runs.workflow_id", "=", workflowId)
        .where("workflow_runs.status", "=", "succeeded")
        .where("workflow_run_steps.position", "in", positions)
        .execute();
      const byRun = new Map<string, { duration: number; values: Map<number, any> }>();
      for (const row of rows) {
        const run = byRun.get(row.run_id) ?? { duration: Number(row.duration_ms), values: new Map() };
        run.values.set(Number(row.position), JSON.parse(row.return_value ?? "null"));
        byRun.set(row.run_id, run);
      }
      return [...byRun.values()];
    };
    const succeeded = async (workflowId: string) =>
      Number(
        (
          await observer.db
            .selectFrom("workflow_runs")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("workflow_id", "=", workflowId)
            .where("status", "=", "succeeded")
            .executeTakeFirst()
        )?.n ?? 0,
      );
    const until = async (what: string, condition: () => Promise<boolean>, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    // Overhead per step, one run at a time.
    const five = await workflow(Array(5).fill(TIMED_STEP));
    for (let n = 0; n < runCount; n++) {
      await trigger(five.endpoint_url, { n });
      await until("a 5-step run", async () => (await succeeded(five.id)) === n + 1, 60_000);
    }
    const gaps: number[] = [];
    const durations: number[] = [];
    for (const run of await stepResults(five.id, [0, 1, 2, 3, 4])) {
      durations.push(run.duration);
      for (let k = 1; k < 5; k++) gaps.push(run.values.get(k).start - run.values.get(k - 1).end);
    }
    const sortedGaps = ascending(gaps);
    progress(`steps: ${runCount} runs, overhead per step p50 ${percentile(sortedGaps, 50)} ms, p99 ${percentile(sortedGaps, 99)} ms`);

    // Many runs paused on a long delay, then short delays measured among them.
    const parked = await workflow([DELAY_STEP(24 * 60 * 60 * 1000), AFTER_DELAY]);
    const pauseStart = Date.now();
    await inParallel(pausedCount, 16, (n) => trigger(parked.endpoint_url, { n }));
    const pausedNow = async () =>
      Number(
        (
          await observer.db
            .selectFrom("workflow_runs")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("workflow_id", "=", parked.id)
            .where("status", "=", "paused")
            .executeTakeFirst()
        )?.n ?? 0,
      );
    await until(`${pausedCount} paused runs`, async () => (await pausedNow()) >= pausedCount, 30 * 60_000);
    const pausedInSeconds = (Date.now() - pauseStart) / 1000;
    progress(`delay: ${pausedCount} runs paused in ${pausedInSeconds.toFixed(1)} s`);

    const delayed = await workflow([DELAY_STEP(delayMs), AFTER_DELAY]);
    // Started below the rate one account's runs start at on a small machine, so that the
    // measured wake-ups do not queue behind the starts of later runs.
    const paceMs = Number(process.env.BENCH_WORKFLOW_PACE_MS ?? 100);
    for (let n = 0; n < delayedCount; n++) {
      await trigger(delayed.endpoint_url, { n });
      await new Promise((resolve) => setTimeout(resolve, paceMs));
    }
    await until(`${delayedCount} delayed runs`, async () => (await succeeded(delayed.id)) >= delayedCount, delayMs + 5 * 60_000);
    const drifts = ascending(
      (await stepResults(delayed.id, [0, 1])).map((run) => run.values.get(1).start - (run.values.get(0).end + delayMs)),
    );
    const stillPaused = await pausedNow();
    return {
      steps: {
        runs: runCount,
        gaps: gaps.length,
        p50Ms: percentile(sortedGaps, 50),
        p99Ms: percentile(sortedGaps, 99),
        maxMs: sortedGaps[sortedGaps.length - 1] ?? NaN,
        runP50Ms: percentile(ascending(durations), 50),
      },
      delay: {
        paused: stillPaused,
        pausedInSeconds: Math.round(pausedInSeconds * 10) / 10,
        delayed: delayedCount,
        delayMs,
        resumed: drifts.length,
        p50Ms: percentile(drifts, 50),
        p99Ms: percentile(drifts, 99),
        maxMs: drifts[drifts.length - 1] ?? NaN,
      },
    };
  } finally {
    await observer.close();
    await sluice.stop();
  }
}

runDirectly(import.meta.url, runWorkflowBench);
