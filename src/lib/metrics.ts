// Prometheus metrics of one Sluice instance. Every instance has its own registry (two in one
// process, as in tests, never share counters), and nothing is registered on prom-client's
// global registry. Labels take values from small fixed sets only — never an account, source
// or URL — and the hot paths (ingest, emit, delivery) use children bound once here, so
// counting is a lookup in a fixed table and an increment.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { LISTENER_KINDS, type EmitterKind, type ListenerKind } from "./resource-kinds.js";

export const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;
export type DeliveryResult = "succeeded" | "retried" | "failed";
export type RunKind = "source" | "workflow" | "inspect";
/** ExecutionFailure kinds (src/runner/protocol/execution-records.ts). */
export type FailureKind = "error" | "timeout" | "memory" | "crash";

type Child = { inc(value?: number): void };
type Observer = { observe(value: number): void };

export interface Metrics {
  registry: Registry;
  /** Counts a request answered by Fastify, by its route pattern (bound on first use, per pattern). */
  httpRequest(route: string, status: number): void;
  /** Counts a request to a public endpoint (/e/ for sources, /w/ for workflows). */
  ingestRequest(kind: EmitterKind, status: number): void;
  /** Counts a committed event by its emitter kind and its stream. */
  eventEmitted(kind: EmitterKind, stream: string): void;
  /** Counts a delivery attempt's outcome; `latencyMs` (emit → 2xx) feeds the latency histogram. */
  delivery(listener: ListenerKind, result: DeliveryResult, latencyMs?: number): void;
  /** A runner process started (+1) or ended (-1). */
  runnerProcesses(delta: number): void;
  /** One execution of user code: its duration, and its failure kind when it failed. */
  run(kind: RunKind, durationMs: number, failure: FailureKind | undefined): void;
  /** How late a timer was claimed, in milliseconds (0 when on time or early). */
  timerLag(ms: number): void;
  /** Adds a gauge read on every scrape (e.g. jobs by state, from one query). */
  gaugeOnScrape(name: string, help: string, labelName: string, read: () => Promise<Record<string, number>>): void;
}

const classOf = (status: number): number => {
  const index = Math.floor(status / 100) - 1;
  return index >= 0 && index < STATUS_CLASSES.length ? index : STATUS_CLASSES.length - 1;
};

const STREAM_CLASSES = ["default", "named", "$errors", "$logs"] as const;
const streamClassOf = (stream: string): number => (stream === "" ? 0 : stream === "$errors" ? 2 : stream === "$logs" ? 3 : 1);

export function createMetrics(options: { processDefaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processDefaults ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const httpRequests = new Counter({
    name: "sluice_http_requests_total",
    help: "API requests answered, by route pattern and status class",
    labelNames: ["route", "status_class"],
    registers,
  });
  const ingest = new Counter({
    name: "sluice_ingest_requests_total",
    help: "Requests to the public endpoints of sources (/e/) and workflows (/w/), by status class",
    labelNames: ["kind", "status_class"],
    registers,
  });
  const events = new Counter({
    name: "sluice_events_emitted_total",
    help: "Events stored, by emitter kind and stream class",
    labelNames: ["emitter", "stream"],
    registers,
  });
  const deliveries = new Counter({
    name: "sluice_deliveries_total",
    help: "Delivery attempts, by listener kind and result",
    labelNames: ["listener", "result"],
    registers,
  });
  const latency = new Histogram({
    name: "sluice_delivery_latency_seconds",
    help: "From the emit that caused a delivery to its successful (2xx) attempt",
    labelNames: ["listener"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers,
  });
  const runners = new Gauge({ name: "sluice_runner_processes", help: "Runner processes alive", registers });
  const runs = new Histogram({
    name: "sluice_run_duration_seconds",
    help: "Executions of user code, by kind",
    labelNames: ["kind"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const runFailures = new Counter({
    name: "sluice_run_failures_total",
    help: "Executions of user code that failed, by kind and failure",
    labelNames: ["kind", "failure"],
    registers,
  });
  const timerLag = new Histogram({
    name: "sluice_timer_lag_seconds",
    help: "How late timers were claimed after their due time",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
    registers,
  });

  // Children bound once: the hot paths index these tables.
  const byClass = (counter: Counter<string>, labels: Record<string, string>): Child[] =>
    STATUS_CLASSES.map((statusClass) => counter.labels({ ...labels, status_class: statusClass }));
  const ingestChildren: Record<EmitterKind, Child[]> = {
    source: byClass(ingest, { kind: "source" }),
    workflow: byClass(ingest, { kind: "workflow" }),
  };
  const eventChildren: Record<EmitterKind, Child[]> = {
    source: STREAM_CLASSES.map((stream) => events.labels({ emitter: "source", stream })),
    workflow: STREAM_CLASSES.map((stream) => events.labels({ emitter: "workflow", stream })),
  };
  const listeners = LISTENER_KINDS;
  const results: DeliveryResult[] = ["succeeded", "retried", "failed"];
  const deliveryChildren = Object.fromEntries(
    listeners.map((listener) => [listener, Object.fromEntries(results.map((result) => [result, deliveries.labels({ listener, result })]))]),
  ) as Record<ListenerKind, Record<DeliveryResult, Child>>;
  const latencyChildren = Object.fromEntries(listeners.map((listener) => [listener, latency.labels({ listener })])) as unknown as Record<
    ListenerKind,
    Observer
  >;
  const runKinds: RunKind[] = ["source", "workflow", "inspect"];
  const runChildren = Object.fromEntries(runKinds.map((kind) => [kind, runs.labels({ kind })])) as unknown as Record<RunKind, Observer>;
  const failureKinds: FailureKind[] = ["error", "timeout", "memory", "crash"];
  const failureChildren = Object.fromEntries(
    runKinds.map((kind) => [kind, Object.fromEntries(failureKinds.map((failure) => [failure, runFailures.labels({ kind, failure })]))]),
  ) as Record<RunKind, Record<FailureKind, Child>>;
  // Route patterns are a fixed set (the app's routes); requests matching none share "unmatched".
  const routeChildren = new Map<string, Child[]>();

  return {
    registry,
    httpRequest(route, status) {
      let children = routeChildren.get(route);
      if (!children) routeChildren.set(route, (children = byClass(httpRequests, { route })));
      children[classOf(status)]!.inc();
    },
    ingestRequest(kind, status) {
      ingestChildren[kind][classOf(status)]!.inc();
    },
    eventEmitted(kind, stream) {
      eventChildren[kind][streamClassOf(stream)]!.inc();
    },
    delivery(listener, result, latencyMs) {
      deliveryChildren[listener][result].inc();
      if (latencyMs !== undefined) latencyChildren[listener].observe(Math.max(0, latencyMs) / 1000);
    },
    runnerProcesses(delta) {
      runners.inc(delta);
    },
    run(kind, durationMs, failure) {
      runChildren[kind].observe(durationMs / 1000);
      if (failure) failureChildren[kind][failure]?.inc();
    },
    timerLag(ms) {
      timerLag.observe(Math.max(0, ms) / 1000);
    },
    gaugeOnScrape(name, help, labelName, read) {
      new Gauge({
        name,
        help,
        labelNames: [labelName],
        registers,
        async collect() {
          const values = await read();
          this.reset();
          for (const [label, value] of Object.entries(values)) this.set({ [labelName]: label }, value);
        },
      });
    },
  };
}
