// End to end, ingest → webhook (the scenario of lib/ingest-to-webhook.ts), requests offered at
// a steady pace. Latency runs from the moment a request's 2xx was read to the moment its
// webhook arrived. Target: 5,000 events/s offered and delivered, p50 ≤ 5 ms, p99 ≤ 50 ms, none
// lost, duplicates only under the same webhook-id.
//
// The rate climbs to its level over a warm-up first (BENCH_E2E_WARMUP_SECONDS, 5), whose
// figures are reported apart: a service that just started runs its first seconds cold
// (compiling, starting runners), and a step from nothing to the full rate left a backlog the
// run never drained. Loss and duplicates are counted over both.
//
// With `splitRoles` (PostgreSQL), the api, worker and scheduler roles run as processes of
// their own, and the CPU time each spends per event is what an operator sizes a deployment by.
import { waitFor } from "./lib/api.js";
import { deliveredCount, deployIngestToWebhook, offerPacedLoad, startWebhookReceiver } from "./lib/ingest-to-webhook.js";
import { ascending, percentile } from "./lib/percentile.js";
import { cpuBetween, treeCpu, type TreeCpu } from "./lib/process-cpu.js";
import { startSluiceServer, type RunningServer } from "./lib/processes.js";
import { runDirectly } from "./lib/run-directly.js";

export interface EndToEndReport {
  offeredPerSecond: number;
  /** The measured part, at the full rate; the warm-up before it is reported under `warmUp`. */
  seconds: number;
  /** The processes Sluice ran as: "all" roles in one, or one per role. */
  roles: "all" | "split";
  /** Requests answered 2xx in the measured part, and how many of them were delivered to the webhook. */
  accepted: number;
  delivered: number;
  deliveredPerSecond: number;
  /** Accepted (in the warm-up too) but never delivered. */
  missing: number;
  /** Second arrivals of an event: under the same webhook-id (allowed) and under another (a fault). */
  duplicatesSameId: number;
  duplicatesOtherId: number;
  /** Requests that could not be sent on time because too many were in flight: the ceiling. */
  notOffered: number;
  refused: number;
  p50Ms: number;
  p99Ms: number;
  warmUp: { seconds: number; accepted: number; p50Ms: number; p99Ms: number };
  /**
   * CPU time per delivered event, in microseconds, of each Sluice process (its threads and
   * the runners it started, which belong to the process that runs user code) and of this
   * load generator; absent without /proc.
   */
  cpuMicrosPerEvent: Record<string, number> | undefined;
}

interface Deployment {
  url: string;
  /** The processes whose CPU time is reported, by name. */
  processes: Map<string, RunningServer>;
  stop(): Promise<void>;
}

async function deploy(options: { database?: string; splitRoles?: boolean }): Promise<Deployment> {
  const env: Record<string, string> = options.database ? { DATABASE_URL: options.database } : {};
  if (!options.splitRoles) {
    const sluice = await startSluiceServer(env);
    return { url: sluice.url, processes: new Map([["service", sluice]]), stop: sluice.stop };
  }
  if (!options.database) throw new Error("roles in processes of their own share a PostgreSQL database");
  const processes = new Map<string, RunningServer>();
  const stopAll = () => Promise.all([...processes.values()].map((p) => p.stop())).then(() => undefined);
  try {
    // The api process makes the schema; the others start once it is there.
    const api = await startSluiceServer(env, { role: "api" });
    processes.set("api", api);
    for (const role of ["worker", "scheduler"]) processes.set(role, await startSluiceServer(env, { role, dataDir: api.dataDir }));
    return { url: api.url, processes, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

const cpuOf = (processes: Map<string, RunningServer>) => new Map([...processes].map(([name, p]) => [name, treeCpu(p.child.pid!)]));

export async function runEndToEndBench(
  options: { rate?: number; seconds?: number; warmUpSeconds?: number; database?: string; splitRoles?: boolean } = {},
): Promise<EndToEndReport> {
  const rate = options.rate ?? Number(process.env.BENCH_E2E_RATE ?? 5000);
  const seconds = options.seconds ?? Number(process.env.BENCH_E2E_SECONDS ?? 10);
  const warmUpSeconds = options.warmUpSeconds ?? Number(process.env.BENCH_E2E_WARMUP_SECONDS ?? 5);
  const receiver = await startWebhookReceiver();
  const deployment = await deploy(options);
  try {
    const endpoint = await deployIngestToWebhook(deployment.url, receiver.url);
    const cpuBefore = cpuOf(deployment.processes);
    const loadCpuBefore = process.cpuUsage();
    const load = await offerPacedLoad(endpoint, rate, seconds, undefined, warmUpSeconds);
    await waitFor(async () => deliveredCount(load, receiver) >= load.acceptedAt.size, 120_000);
    const cpuAfter = cpuOf(deployment.processes);
    const loadCpu = process.cpuUsage(loadCpuBefore);
    const allDelivered = deliveredCount(load, receiver);
    const steady = (seq: number) => seq >= load.steadyFrom;
    const accepted = [...load.acceptedAt.keys()].filter(steady).length;
    const arrivals = [...receiver.arrivals].filter(([seq]) => steady(seq));
    const delivered = arrivals.filter(([seq]) => load.acceptedAt.has(seq)).length;
    const lastArrival = Math.max(...arrivals.map(([, a]) => a.at));
    const latenciesOf = (part: (seq: number) => boolean) =>
      ascending(
        [...load.acceptedAt.entries()]
          .filter(([seq]) => part(seq) && receiver.arrivals.has(seq))
          .map(([seq, at]) => Math.max(0, receiver.arrivals.get(seq)!.at - at)),
      );
    const latencies = latenciesOf(steady);
    const warmUpLatencies = latenciesOf((seq) => !steady(seq));
    const round = (n: number) => Math.round(n * 100) / 100;
    const perEvent = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, allDelivered));
    let cpuMicrosPerEvent: Record<string, number> | undefined = {};
    for (const [name, before] of cpuBefore) {
      const used: TreeCpu | undefined = cpuBetween(before, cpuAfter.get(name));
      if (!used) cpuMicrosPerEvent = undefined;
      else if (cpuMicrosPerEvent) {
        cpuMicrosPerEvent[name] = perEvent(used.ownSeconds);
        cpuMicrosPerEvent[`${name} runners`] = perEvent(used.childrenSeconds);
      }
    }
    if (cpuMicrosPerEvent) cpuMicrosPerEvent["load generator"] = perEvent((loadCpu.user + loadCpu.system) / 1e6);
    return {
      offeredPerSecond: rate,
      seconds,
      roles: options.splitRoles ? "split" : "all",
      accepted,
      delivered,
      deliveredPerSecond: Math.round(delivered / ((lastArrival - (load.startedAt + warmUpSeconds * 1000)) / 1000)),
      missing: load.acceptedAt.size - allDelivered,
      duplicatesSameId: receiver.duplicates.sameId,
      duplicatesOtherId: receiver.duplicates.otherId,
      notOffered: load.notOffered,
      refused: load.refused,
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      warmUp: {
        seconds: warmUpSeconds,
        accepted: load.acceptedAt.size - accepted,
        p50Ms: round(percentile(warmUpLatencies, 50)),
        p99Ms: round(percentile(warmUpLatencies, 99)),
      },
      cpuMicrosPerEvent,
    };
  } finally {
    await deployment.stop();
    await receiver.close();
  }
}

// Run directly: node dist/bench/end-to-end.js (BENCH_E2E_RATE, BENCH_E2E_SECONDS,
// BENCH_E2E_WARMUP_SECONDS; with BENCH_DATABASE_URL, BENCH_E2E_SPLIT_ROLES=1 runs one process
// per role).
runDirectly(import.meta.url, (options) => runEndToEndBench({ ...options, splitRoles: process.env.BENCH_E2E_SPLIT_ROLES === "1" }));
