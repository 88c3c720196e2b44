// The scenario the end-to-end and soak benchmarks share: an HTTP source without a custom
// response (200 once the request is stored) and one webhook subscription, fed at a steady
// pace by this process, which also receives the webhooks (all on loopback). Each request
// carries a sequence number that comes back in its webhook.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { call, createAccount } from "./api.js";
import { BENCH_ADMIN_TOKEN } from "./processes.js";

const SOURCE_CODE = `export default {
  name: "bench-end-to-end",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

const MAX_IN_FLIGHT = 1024;

export const now = () => performance.timeOrigin + performance.now();

export interface WebhookReceiver {
  url: string;
  /** First arrival of each sequence number. */
  arrivals: Map<number, { at: number; webhookId: string }>;
  /** Second arrivals: under the same webhook-id (allowed) and under another (a fault). */
  duplicates: { sameId: number; otherId: number };
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const arrivals = new Map<number, { at: number; webhookId: string }>();
  const duplicates = { sameId: 0, otherId: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = now();
      res.writeHead(204).end();
      const seq = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { seq: number }).seq;
      const webhookId = String(req.headers["webhook-id"]);
      const earlier = arrivals.get(seq);
      if (!earlier) arrivals.set(seq, { at, webhookId });
      else if (earlier.webhookId === webhookId) duplicates.sameId++;
      else duplicates.otherId++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    duplicates,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Makes an account, the source, the webhook and the subscription; returns the source's endpoint. */
export async function deployIngestToWebhook(sluiceUrl: string, receiverUrl: string): Promise<URL> {
  const key = await createAccount(sluiceUrl, BENCH_ADMIN_TOKEN, "bench-end-to-end");
  const source = await call(sluiceUrl, "POST", "/sources", { key, json: { component_code: SOURCE_CODE } });
  const hook = await call(sluiceUrl, "POST", "/webhooks", { key, query: { url: receiverUrl } });
  await call(sluiceUrl, "POST", "/subscriptions", { key, query: { emitter_id: source.data.id, listener_id: hook.data.id } });
  const endpoint = new URL(source.data.configured_props.http.endpoint_url as string);
  endpoint.host = new URL(sluiceUrl).host;
  return endpoint;
}

export interface PacedLoad {
  /** When each accepted request's 2xx was read, by sequence number. */
  acceptedAt: Map<number, number>;
  /** Requests that could not be sent on time because too many were in flight: the ceiling. */
  notOffered: number;
  refused: number;
  /** When the first request was due. */
  startedAt: number;
  /** The first sequence number offered at the full rate, after the ramp (0 without one). */
  steadyFrom: number;
}

export function newPacedLoad(): PacedLoad {
  return { acceptedAt: new Map(), notOffered: 0, refused: 0, startedAt: now(), steadyFrom: 0 };
}

/**
 * Offers `rate` requests a second for `seconds`, numbered from 0, and resolves once every
 * request sent has its answer. Paced every millisecond: as many requests as are due by then
 * (Node's timers fire about once a millisecond); when too many are in flight, the due ones are
 * counted as not offered. `load` may be read while it runs. With `rampSeconds`, the rate first
 * climbs evenly from 0 over that long (as traffic reaching a service that just started does),
 * and `seconds` at the full rate follow.
 */
export async function offerPacedLoad(
  endpoint: URL,
  rate: number,
  seconds: number,
  load: PacedLoad = newPacedLoad(),
  rampSeconds = 0,
): Promise<PacedLoad> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  load.startedAt = now();
  let inFlight = 0;
  const send = (seq: number) => {
    inFlight++;
    const body = JSON.stringify({ seq });
    const req = http.request(
      endpoint,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => {
          inFlight--;
          if (res.statusCode === 200) load.acceptedAt.set(seq, now());
          else load.refused++;
        });
      },
    );
    req.on("error", () => {
      inFlight--;
      load.refused++;
    });
    req.end(body);
  };
  try {
    let sent = 0;
    const rampRequests = (rate * rampSeconds) / 2;
    load.steadyFrom = Math.floor(rampRequests);
    const total = Math.floor(rampRequests + rate * seconds);
    // Requests due t seconds in: the area under a rate that climbs to `rate`, then stays.
    const dueBy = (t: number) => (t < rampSeconds ? (rate * t * t) / (2 * rampSeconds) : rampRequests + rate * (t - rampSeconds));
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(total, Math.floor(dueBy((now() - load.startedAt) / 1000)));
        while (sent + load.notOffered < due) {
          const seq = sent + load.notOffered;
          if (inFlight >= MAX_IN_FLIGHT) load.notOffered++;
          else {
            send(seq);
            sent++;
          }
        }
        if (sent + load.notOffered >= total) {
          clearInterval(timer);
          resolve();
        }
      }, 1);
    });
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    return load;
  } finally {
    agent.destroy();
  }
}

/** Accepted requests whose webhook has arrived. */
export function deliveredCount(load: PacedLoad, receiver: WebhookReceiver): number {
  let delivered = 0;
  for (const seq of load.acceptedAt.keys()) if (receiver.arrivals.has(seq)) delivered++;
  return delivered;
}
