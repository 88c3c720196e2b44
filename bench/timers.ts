// Timer drift (docs/architecture.md, "Performance targets": 10,000 active interval sources fire on time, drift p99 ≤ 1 s).
// Sluice runs in its own process exactly as `npm start` runs it. The timers are ordinary
// sources made through the public API, spread over several accounts (so several per-account
// runner pools take part) at an even pace over one interval, as sources made over time are;
// their code emits the moment its run() started.
//
// Drift of a run = the moment its run() started in the runner (Date.now(), the same machine
// clock as the service's) − the due time that run consumed: the source's next_run_at when the
// scheduler claimed it. It covers everything a user waits for: the scheduler noticing the
// timer, the claim, the queue, a worker taking the job and a runner starting the code.
// The run event's `timestamp` is not used as the due time: it is the moment of the claim, in
// whole seconds, so it would hide the scheduler's own lateness behind a 1-s rounding.
// Due times are observed in the database (the API does not show next_run_at): the first is
// read once every source exists; the k-th run of a source is due at first + k × interval.
// Two cycles are measured by default and also reported apart: the first run of each new
// source, when its account's runners may have gone idle and must be started (a burst of
// process starts), and the later runs of a steady load.
import { call, createAccount } from "./lib/api.js";
import { openObserverDatabase, type ObserverDatabase } from "./lib/observer-database.js";
import { BENCH_ADMIN_TOKEN, startSluiceServer } from "./lib/processes.js";
import { percentile } from "./lib/percentile.js";

const SOURCE_CODE = `export default {
  name: "bench-timer",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } },
  async run(event) {
    this.$emit({ started_at: Date.now(), timestamp: event.timestamp });
  },
};`;

export interface TimerBenchReport {
  sources: number;
  accounts: number;
  intervalSeconds: number;
  /** How long making the sources over the API took (paced over spreadSeconds). */
  createSeconds: number;
  spreadSeconds: number;
  /** Runs due in the measured window (every source at least once), and what happened to them. */
  expected: number;
  fired: number;
  missed: number;
  doubleFired: number;
  /** Runs that match no due time (started more than half an interval early). */
  unexpected: number;
  /** Drift of the runs that fired, in milliseconds. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  minMs: number;
  /** The same, for each source's first run and for its later runs apart. */
  firstRuns: DriftFigures;
  laterRuns: DriftFigures;
}

export interface DriftFigures {
  runs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface TimerBenchOptions {
  sources?: number;
  intervalSeconds?: number;
  /** Cycles of the last-made source measured (every earlier source gets at least as many). */
  cycles?: number;
  accounts?: number;
  /** Over how long the sources are made (their due times spread as much); one interval by default. */
  spreadSeconds?: number;
  /** A PostgreSQL URL for Sluice's storage; SQLite in a fresh data directory when absent. */
  database?: string;
  serverEnv?: Record<string, string>;
  progress?: (message: string) => void;
}

function figures(drifts: number[]): DriftFigures {
  const sorted = [...drifts].sort((a, b) => a - b);
  return { runs: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted[sorted.length - 1] ?? NaN };
}

/** Runs `task(i)` for i in 0..count-1 with at most `width` at a time. */
async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export async function runTimerBench(options: TimerBenchOptions = {}): Promise<TimerBenchReport> {
  const sourceCount = options.sources ?? Number(process.env.BENCH_TIMER_SOURCES ?? 10_000);
  const intervalSeconds = options.intervalSeconds ?? Number(process.env.BENCH_TIMER_INTERVAL_SECONDS ?? 60);
  const cycles = Math.max(1, options.cycles ?? Number(process.env.BENCH_TIMER_CYCLES ?? 2));
  const accountCount = Math.max(1, Math.min(options.accounts ?? 10, sourceCount));
  const spreadSeconds = options.spreadSeconds ?? Number(process.env.BENCH_TIMER_SPREAD_SECONDS ?? intervalSeconds);
  const progress = options.progress ?? (() => undefined);
  const intervalMs = intervalSeconds * 1000;

  const sluice = await startSluiceServer({
    SLUICE_MIN_TIMER_SECONDS: String(Math.min(15, intervalSeconds)),
    ...(options.database ? { DATABASE_URL: options.database } : {}),
    ...options.serverEnv,
  });
  let observer: ObserverDatabase | undefined;
  try {
    observer = openObserverDatabase({ dataDir: sluice.dataDir, databaseUrl: options.database });
    const db = observer.db;

    const createStart = Date.now();
    const accounts = await Promise.all(
      Array.from({ length: accountCount }, async (_, a) => {
        const key = await createAccount(sluice.url, BENCH_ADMIN_TOKEN, `bench-timers-${a}`);
        // The code is saved once per account; its other sources name the saved component.
        const first = await call(sluice.url, "POST", "/sources", {
          key,
          json: { component_code: SOURCE_CODE, configured_props: { timer: { intervalSeconds } } },
        });
        return { key, componentId: first.data.component_id as string };
      }),
    );
    // Source i belongs to account i mod accounts; the first of each account exists already.
    // Sources are made at an even pace over `spreadSeconds` (one interval by default), so their
    // due times spread over the interval as those of sources made over time do: the steady
    // state of 10,000 active timers, 10,000 / interval runs a second. Made all at once, every
    // timer would come due in the same few seconds of each interval instead.
    const remaining = sourceCount - accountCount;
    const paceMs = (spreadSeconds * 1000) / Math.max(1, remaining);
    await inParallel(remaining, 16, async (i) => {
      const slot = createStart + i * paceMs;
      if (slot > Date.now()) await new Promise((resolve) => setTimeout(resolve, slot - Date.now()));
      const account = accounts[(i + accountCount) % accountCount]!;
      await call(sluice.url, "POST", "/sources", {
        key: account.key,
        json: { component_id: account.componentId, configured_props: { timer: { intervalSeconds } } },
      });
      if ((i + 1) % 1000 === 0) progress(`created ${i + 1 + accountCount} sources`);
    });
    const createSeconds = (Date.now() - createStart) / 1000;
    progress(`created ${sourceCount} sources in ${createSeconds.toFixed(1)} s`);

    // First due time of each source. A source made long enough ago may have fired already:
    // then next_run_at is a later due time, and created_at tells how many intervals later.
    const rows = await db.selectFrom("sources").select(["id", "created_at", "next_run_at"]).where("next_run_at", "is not", null).execute();
    const firstDue = new Map<string, number>();
    for (const row of rows) {
      const next = Number(row.next_run_at);
      const claimedAlready = Math.max(0, Math.round((next - Number(row.created_at)) / intervalMs) - 1);
      firstDue.set(row.id, next - claimedAlready * intervalMs);
    }
    if (firstDue.size !== sourceCount) throw new Error(`expected ${sourceCount} timers, found ${firstDue.size}`);

    // The window: every due time up to the last source's last measured one.
    const windowEnd = Math.max(...firstDue.values()) + (cycles - 1) * intervalMs;
    let expected = 0;
    for (const first of firstDue.values()) expected += Math.floor((windowEnd - first) / intervalMs) + 1;

    const measure = async () => {
      const events = await db.selectFrom("events").select(["emitter_id", "event"]).where("stream", "=", "").execute();
      const runsByDue = new Map<string, number>(); // `${source}:${k}` → runs
      const drifts: number[] = [];
      const firstDrifts: number[] = [];
      const laterDrifts: number[] = [];
      let unexpected = 0;
      let doubleFired = 0;
      for (const row of events) {
        const first = firstDue.get(row.emitter_id);
        if (first === undefined) continue;
        const { started_at: startedAt } = JSON.parse(row.event) as { started_at: number };
        // The due time nearest the start: right unless a run is half an interval off.
        const k = Math.round((startedAt - first) / intervalMs);
        const due = first + k * intervalMs;
        if (k < 0) {
          unexpected++;
          continue;
        }
        if (due > windowEnd) continue;
        const key = `${row.emitter_id}:${k}`;
        const runs = (runsByDue.get(key) ?? 0) + 1;
        runsByDue.set(key, runs);
        if (runs > 1) doubleFired++;
        else {
          drifts.push(startedAt - due);
          (k === 0 ? firstDrifts : laterDrifts).push(startedAt - due);
        }
      }
      return { fired: runsByDue.size, doubleFired, unexpected, drifts, firstDrifts, laterDrifts };
    };

    // Wait for the window to close, then for its last runs (or give up after a grace period).
    const graceMs = Math.min(30_000, Math.max(5_000, intervalMs / 4));
    const untilWindowEnd = windowEnd - Date.now();
    progress(`${expected} runs due in the window; waiting ${Math.max(0, Math.round(untilWindowEnd / 1000))} s for it to close`);
    if (untilWindowEnd > 0) await new Promise((resolve) => setTimeout(resolve, untilWindowEnd));
    let result = await measure();
    while (result.fired < expected && Date.now() < windowEnd + graceMs) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      result = await measure();
    }
    // A moment more, so a second run of a due time (a double fire) would be seen.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    result = await measure();

    const drifts = result.drifts.sort((a, b) => a - b);
    return {
      sources: sourceCount,
      accounts: accountCount,
      intervalSeconds,
      createSeconds: Math.round(createSeconds * 10) / 10,
      spreadSeconds,
      expected,
      fired: result.fired,
      missed: expected - result.fired,
      doubleFired: result.doubleFired,
      unexpected: result.unexpected,
      p50Ms: percentile(drifts, 50),
      p99Ms: percentile(drifts, 99),
      maxMs: drifts[drifts.length - 1] ?? NaN,
      minMs: drifts[0] ?? NaN,
      firstRuns: figures(result.firstDrifts),
      laterRuns: figures(result.laterDrifts),
    };
  } finally {
    await observer?.close();
    await sluice.stop(); // also removes its data directory
  }
}
