// `npm run bench`: every benchmark, each against a baseline measured in the same run, with
// the targets of docs/architecture.md, "Performance targets". Results go to stdout and bench-results/latest.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runColdStartBench } from "./cold-start.js";
import { runDeliveryBench } from "./delivery.js";
import { runEgressProxyBench } from "./egress-proxy.js";
import { runEndToEndBench } from "./end-to-end.js";
import { runIngestBench, type CpuPerRequest } from "./ingest.js";
import { runTimerBench } from "./timers.js";
import { runWorkflowBench } from "./workflows.js";
import { withFreshDatabase } from "./lib/fresh-database.js";
import { repoRoot } from "./lib/paths.js";

const durationSeconds = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

function line(
  name: string,
  r: { requestsPerSecond: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number; cpuMicrosPerRequest?: CpuPerRequest },
  extra = "",
): string {
  return `${name.padEnd(34)} ${String(r.requestsPerSecond).padStart(7)} req/s  p50 ${String(r.p50Ms).padStart(4)} ms  p99 ${String(r.p99Ms).padStart(4)} ms  non-2xx ${r.non2xx} errors ${r.errors} ${extra}${cpuLine(r)}`;
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(1)} % of bare`;

/** What each process spent per request, indented under the scenario's line; nothing without /proc. */
function cpuLine(r: { cpuMicrosPerRequest?: CpuPerRequest }): string {
  const c = r.cpuMicrosPerRequest;
  if (!c) return "";
  return `\n${"".padEnd(36)}CPU µs per request: event loop ${c.eventLoop}, server ${c.server}, its runners ${c.runners ?? "unknown (one exited unreaped)"}, load generator ${c.loadGenerator}`;
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = { node: process.version, durationSeconds, connections, at: new Date().toISOString() };
  console.log(`Sluice benchmarks (Node ${process.version}, ${connections} connections, ${durationSeconds} s per run)\n`);

  const ingest = await runIngestBench({ durationSeconds, connections });
  results.ingest = ingest;
  console.log(line("bare node:http (baseline)", ingest.bare));
  console.log(
    line(
      "HTTP source, customResponse",
      ingest.ingestCustomResponse,
      `→ ${pct(ingest.ingestCustomResponse.ratio)} (target ≥ 25 %, p99 ≤ 5× bare's)`,
    ),
  );
  console.log(
    line(
      "HTTP source, 200 on acceptance",
      ingest.ingestAccepted,
      `→ ${pct(ingest.ingestAccepted.ratio)}; processed ${ingest.ingestAccepted.processed} runs, drained in ${ingest.ingestAccepted.drainSeconds.toFixed(1)} s`,
    ),
  );
  console.log(line("GET event_summaries", ingest.summaries, `→ ${pct(ingest.summaries.ratio)} (target ≥ 50 %)`));

  // Delivery on SQLite, and on PostgreSQL too when BENCH_DATABASE_URL names a database.
  const throughputEvents = Number(process.env.BENCH_DELIVERY_EVENTS ?? 20_000);
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const runs: Array<[string, () => ReturnType<typeof runDeliveryBench>]> = [["SQLite", () => runDeliveryBench({ throughputEvents })]];
  if (adminUrl)
    runs.push(["PostgreSQL", () => withFreshDatabase(adminUrl, (database) => runDeliveryBench({ throughputEvents, database }))]);
  for (const [name, run] of runs) {
    const { latency, throughput } = await run();
    results[`delivery${name}`] = { latency, throughput };
    console.log(
      `${`emit → webhook received (${name})`.padEnd(34)} p50 ${latency.p50Ms} ms  p99 ${latency.p99Ms} ms (target ≤ 5 / ≤ 50 ms, ${latency.events} events one at a time)`,
    );
    console.log(
      `${`webhook deliveries (${name})`.padEnd(34)} ${throughput.deliveriesPerSecond} deliveries/s over ${throughput.events} events (emitted in ${throughput.emitSeconds} s), missing ${throughput.missing}, duplicates ${throughput.duplicates} (target ≥ 5,000/s, none missing)`,
    );
  }

  // End to end, ingest → webhook, paced at BENCH_E2E_RATE (5,000/s) for BENCH_E2E_SECONDS (10)
  // after a warm-up climbing to that rate over BENCH_E2E_WARMUP_SECONDS (5), reported apart;
  // on PostgreSQL also with one process per role, for the CPU time each role spends per event.
  const e2eRuns: Array<[string, () => ReturnType<typeof runEndToEndBench>]> = [["SQLite", () => runEndToEndBench()]];
  if (adminUrl) {
    e2eRuns.push(["PostgreSQL", () => withFreshDatabase(adminUrl, (database) => runEndToEndBench({ database }))]);
    e2eRuns.push([
      "PostgreSQL, a process per role",
      () => withFreshDatabase(adminUrl, (database) => runEndToEndBench({ database, splitRoles: true })),
    ]);
  }
  for (const [name, run] of e2eRuns) {
    const r = await run();
    results[`endToEnd${name.replace(/[^A-Za-z]/g, "")}`] = r;
    console.log(
      `${`ingest → webhook (${name})`.padEnd(34)} ${r.deliveredPerSecond} delivered/s at ${r.offeredPerSecond}/s offered; p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms; accepted ${r.accepted}, missing ${r.missing}, duplicates ${r.duplicatesSameId} (same webhook-id) / ${r.duplicatesOtherId} (other), not offered ${r.notOffered}, refused ${r.refused} (target ≥ 5,000/s, p50 ≤ 5 ms, p99 ≤ 50 ms, none lost)`,
    );
    if (r.warmUp.seconds > 0)
      console.log(
        `${"".padEnd(34)} warm-up (${r.warmUp.seconds} s climbing to the rate): ${r.warmUp.accepted} accepted, p50 ${r.warmUp.p50Ms} ms, p99 ${r.warmUp.p99Ms} ms`,
      );
    if (r.cpuMicrosPerEvent)
      console.log(
        `${"".padEnd(34)} CPU per event: ${Object.entries(r.cpuMicrosPerEvent)
          .map(([part, micros]) => `${part} ${micros} µs`)
          .join(", ")}`,
      );
  }

  // Timers: BENCH_TIMER_SOURCES interval sources (10,000) every BENCH_TIMER_INTERVAL_SECONDS (60).
  const timers = await runTimerBench();
  results.timers = timers;
  console.log(
    `${"timer drift".padEnd(34)} p50 ${timers.p50Ms} ms  p99 ${timers.p99Ms} ms  max ${timers.maxMs} ms over ${timers.fired} runs of ${timers.sources} sources every ${timers.intervalSeconds} s (first runs p99 ${timers.firstRuns.p99Ms} ms, later runs p99 ${timers.laterRuns.p99Ms} ms); missed ${timers.missed}, double-fired ${timers.doubleFired} (target p99 ≤ 1,000 ms)`,
  );

  const workflows = await runWorkflowBench();
  results.workflows = workflows;
  console.log(
    `${"workflow step overhead".padEnd(34)} p50 ${workflows.steps.p50Ms} ms  p99 ${workflows.steps.p99Ms} ms per step over its own code (${workflows.steps.gaps} steps of ${workflows.steps.runs} 5-step runs; run p50 ${workflows.steps.runP50Ms} ms)`,
  );
  console.log(
    `${"workflow delay drift".padEnd(34)} p50 ${workflows.delay.p50Ms} ms  p99 ${workflows.delay.p99Ms} ms  max ${workflows.delay.maxMs} ms over ${workflows.delay.resumed} delays of ${workflows.delay.delayMs} ms with ${workflows.delay.paused} other runs paused`,
  );

  const cold = await runColdStartBench();
  results.coldStart = cold;
  console.log(
    `${"runner cold start".padEnd(34)} node -e 0: p50 ${cold.nodeFloor.p50Ms} ms, p99 ${cold.nodeFloor.p99Ms} ms; ${Object.entries(
      cold.modes,
    )
      .map(([mode, r]) => `sandbox ${mode}: p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms (warm ${r.warmMs} ms)`)
      .join("; ")} over ${cold.samples} first executions`,
  );

  const egress = await runEgressProxyBench();
  results.egressProxy = egress;
  const share = (r: { directPerSecond: number; proxiedPerSecond: number; ratio: number }) =>
    `${r.proxiedPerSecond} req/s through the proxy, ${r.directPerSecond} direct → ${(r.ratio * 100).toFixed(1)} %`;
  console.log(
    `${"HTTP from user code".padEnd(34)} keep-alive: ${share(egress.keepAlive)} (target ≥ 50 %); a connection per request: ${share(egress.newConnections)} (sandbox ${egress.sandbox})`,
  );

  const outDir = join(repoRoot(), "bench-results");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "latest.json"), JSON.stringify(results, null, 2));
  console.log(`\nwritten to bench-results/latest.json`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
