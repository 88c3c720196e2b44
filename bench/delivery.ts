// Emit → webhook received (docs/architecture.md, "Performance targets": p50 ≤ 5 ms, p99 ≤ 50 ms, ≥ 5,000 deliveries/s,
// nothing missing). Sluice runs in its own process exactly as `npm start` runs it; an HTTP
// source emits events stamped with the emit time, a subscription delivers them to a
// loopback receiver in this process, which stamps arrival on the same machine clock.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { call, createAccount, waitFor } from "./lib/api.js";
import { BENCH_ADMIN_TOKEN, startSluiceServer } from "./lib/processes.js";
import { percentile } from "./lib/percentile.js";
import { runDirectly } from "./lib/run-directly.js";

// Emits `count` events, each stamped with the moment of its emit.
const SOURCE_CODE = `export default {
  name: "bench-delivery",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) {
    const { first, count } = event.body;
    for (let i = 0; i < count; i++) this.$emit({ seq: first + i, t: performance.timeOrigin + performance.now() });
    this.http.respond({ status: 200, body: { ok: true } });
  },
};`;

export interface DeliveryBenchReport {
  latency: { events: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** seconds: first emit → last arrival; emitSeconds: how long emitting took (the input rate). */
  throughput: { events: number; seconds: number; emitSeconds: number; deliveriesPerSecond: number; missing: number; duplicates: number };
}

const now = () => performance.timeOrigin + performance.now();

const round = (n: number) => Math.round(n * 100) / 100;

export async function runDeliveryBench(
  options: {
    latencyEvents?: number;
    throughputEvents?: number;
    batch?: number;
    database?: string;
    serverEnv?: Record<string, string>;
    progress?: (message: string) => void;
  } = {},
): Promise<DeliveryBenchReport> {
  const latencyEvents = options.latencyEvents ?? 500;
  const throughputEvents = options.throughputEvents ?? 20_000;
  const batch = options.batch ?? 100;
  const progress = options.progress ?? (() => undefined);

  const arrivals = new Map<number, number>(); // seq → latency ms of its first arrival
  let duplicates = 0;
  let lastArrival = 0;
  const waiters = new Map<number, () => void>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = now();
      res.writeHead(204).end();
      const { seq, t } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { seq: number; t: number };
      if (arrivals.has(seq)) duplicates++;
      else arrivals.set(seq, at - t);
      lastArrival = at;
      waiters.get(seq)?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  // "sluice started" is an info line; nothing is logged per request or delivery.
  const sluice = await startSluiceServer({
    LOG_LEVEL: "info",
    ...(options.database ? { DATABASE_URL: options.database } : {}),
    ...options.serverEnv,
  });
  try {
    const key = await createAccount(sluice.url, BENCH_ADMIN_TOKEN, "bench-delivery");
    const source = await call(sluice.url, "POST", "/sources", { key, json: { component_code: SOURCE_CODE } });
    const hook = await call(sluice.url, "POST", "/webhooks", { key, query: { url: receiverUrl } });
    await call(sluice.url, "POST", "/subscriptions", { key, query: { emitter_id: source.data.id, listener_id: hook.data.id } });
    // With PORT=0 the generated URL cannot know the port: point it at where Sluice listens.
    const endpointUrl = new URL(source.data.configured_props.http.endpoint_url as string);
    endpointUrl.host = new URL(sluice.url).host;
    const endpoint = endpointUrl.toString();
    const emit = async (first: number, count: number) => {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ first, count }),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`emit failed: ${res.status}`);
    };

    progress("set up; measuring latency");
    // Latency: one event at a time, each waited for, after a short warm-up.
    let seq = 0;
    for (let i = 0; i < latencyEvents + 50; i++) {
      const arrived = new Promise<void>((resolve) => waiters.set(seq, resolve));
      await emit(seq, 1);
      await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, 5000))]);
      waiters.delete(seq);
      seq++;
    }
    const latencies = [...arrivals.entries()]
      .filter(([s]) => s >= 50)
      .map(([, ms]) => ms)
      .sort((a, b) => a - b);

    progress(`latency done; measuring throughput`);
    // Throughput: many events emitted in batches from a few concurrent requests.
    const first = seq;
    const start = now();
    let next = first;
    const end = first + throughputEvents;
    const senders = Array.from({ length: 4 }, async () => {
      while (next < end) {
        const from = next;
        next += batch;
        await emit(from, Math.min(batch, end - from));
      }
    });
    await Promise.all(senders);
    const emitSeconds = (now() - start) / 1000;
    progress(`emitted ${throughputEvents} events in ${Math.round(now() - start)} ms; waiting for deliveries`);
    const received = () => [...arrivals.keys()].filter((s) => s >= first).length;
    await waitFor(async () => received() >= throughputEvents, 120_000);
    const seconds = (lastArrival - start) / 1000;
    const got = received();
    return {
      latency: {
        events: latencies.length,
        p50Ms: round(percentile(latencies, 50)),
        p99Ms: round(percentile(latencies, 99)),
        maxMs: round(latencies[latencies.length - 1] ?? NaN),
      },
      throughput: {
        events: throughputEvents,
        seconds: round(seconds),
        emitSeconds: round(emitSeconds),
        deliveriesPerSecond: Math.round(got / seconds),
        missing: throughputEvents - got,
        duplicates,
      },
    };
  } finally {
    await sluice.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

// Run directly: node dist/bench/delivery.js (on PostgreSQL too with BENCH_DATABASE_URL).
runDirectly(import.meta.url, runDeliveryBench);
