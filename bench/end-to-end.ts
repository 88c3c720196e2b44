// End to end, ingest → webhook: an HTTP source without a custom response (200 once the
// request is stored), one webhook subscription, requests offered at a steady pace by this
// process, which also receives the webhooks (all on loopback). Latency runs from the moment a
// request's 2xx was read to the moment its webhook arrived. Target: 5,000 events/s offered and
// delivered, p50 ≤ 5 ms, p99 ≤ 50 ms, none lost, duplicates only under the same webhook-id.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { call, createAccount, waitFor } from "./lib/api.js";
import { ascending, percentile } from "./lib/percentile.js";
import { BENCH_ADMIN_TOKEN, startSluiceServer } from "./lib/processes.js";
import { runDirectly } from "./lib/run-directly.js";

const SOURCE_CODE = `export default {
  name: "bench-end-to-end",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

export interface EndToEndReport {
  offeredPerSecond: number;
  seconds: number;
  /** Requests answered 2xx, and how many of them were delivered to the webhook. */
  accepted: number;
  delivered: number;
  deliveredPerSecond: number;
  missing: number;
  /** Second arrivals of an event: under the same webhook-id (allowed) and under another (a fault). */
  duplicatesSameId: number;
  duplicatesOtherId: number;
  /** Requests that could not be sent on time because too many were in flight: the ceiling. */
  notOffered: number;
  refused: number;
  p50Ms: number;
  p99Ms: number;
}

const MAX_IN_FLIGHT = 1024;
const now = () => performance.timeOrigin + performance.now();

export async function runEndToEndBench(options: { rate?: number; seconds?: number; database?: string } = {}): Promise<EndToEndReport> {
  const rate = options.rate ?? Number(process.env.BENCH_E2E_RATE ?? 5000);
  const seconds = options.seconds ?? Number(process.env.BENCH_E2E_SECONDS ?? 10);
  const acceptedAt = new Map<number, number>();
  const arrivedAt = new Map<number, { at: number; webhookId: string }>();
  let duplicatesSameId = 0;
  let duplicatesOtherId = 0;

  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = now();
      res.writeHead(204).end();
      const seq = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { seq: number }).seq;
      const webhookId = String(req.headers["webhook-id"]);
      const earlier = arrivedAt.get(seq);
      if (!earlier) arrivedAt.set(seq, { at, webhookId });
      else if (earlier.webhookId === webhookId) duplicatesSameId++;
      else duplicatesOtherId++;
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const sluice = await startSluiceServer(options.database ? { DATABASE_URL: options.database } : {});
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  try {
    const key = await createAccount(sluice.url, BENCH_ADMIN_TOKEN, "bench-end-to-end");
    const source = await call(sluice.url, "POST", "/sources", { key, json: { component_code: SOURCE_CODE } });
    const hook = await call(sluice.url, "POST", "/webhooks", { key, query: { url: receiverUrl } });
    await call(sluice.url, "POST", "/subscriptions", { key, query: { emitter_id: source.data.id, listener_id: hook.data.id } });
    const endpoint = new URL(source.data.configured_props.http.endpoint_url as string);
    endpoint.host = new URL(sluice.url).host;

    let inFlight = 0;
    let refused = 0;
    const send = (seq: number) => {
      inFlight++;
      const body = JSON.stringify({ seq });
      const req = http.request(endpoint, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on("end", () => {
          inFlight--;
          if (res.statusCode === 200) acceptedAt.set(seq, now());
          else refused++;
        });
      });
      req.on("error", () => {
        inFlight--;
        refused++;
      });
      req.end(body);
    };

    // Paced: every millisecond, as many requests as are due by then (Node's timers fire about
    // once a millisecond); when too many are in flight, the due ones are counted as not offered.
    let sent = 0;
    let notOffered = 0;
    const total = rate * seconds;
    const start = now();
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate));
        while (sent + notOffered < due) {
          const seq = sent + notOffered;
          if (inFlight >= MAX_IN_FLIGHT) notOffered++;
          else {
            send(seq);
            sent++;
          }
        }
        if (sent + notOffered >= total) {
          clearInterval(timer);
          resolve();
        }
      }, 1);
    });
    await waitFor(async () => inFlight === 0, 60_000);
    const delivered = () => [...acceptedAt.keys()].filter((seq) => arrivedAt.has(seq)).length;
    await waitFor(async () => delivered() >= acceptedAt.size, 120_000).catch(() => undefined);
    const lastArrival = Math.max(...[...arrivedAt.values()].map((a) => a.at));
    const latencies = ascending([...acceptedAt.entries()].filter(([seq]) => arrivedAt.has(seq)).map(([seq, at]) => Math.max(0, arrivedAt.get(seq)!.at - at)));
    const round = (n: number) => Math.round(n * 100) / 100;
    return {
      offeredPerSecond: rate,
      seconds,
      accepted: acceptedAt.size,
      delivered: delivered(),
      deliveredPerSecond: Math.round(delivered() / ((lastArrival - start) / 1000)),
      missing: acceptedAt.size - delivered(),
      duplicatesSameId,
      duplicatesOtherId,
      notOffered,
      refused,
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
    };
  } finally {
    agent.destroy();
    await sluice.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

// Run directly: node dist/bench/end-to-end.js (on PostgreSQL too with BENCH_DATABASE_URL).
runDirectly(import.meta.url, runEndToEndBench);
