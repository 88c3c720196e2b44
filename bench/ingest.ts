// HTTP-source ingest: request → user code → emit stored → response, against a bare node:http
// server measured in the same run (docs/architecture.md, "Performance targets"), plus the event-summaries read path.
import { call, createAccount, waitFor } from "./lib/api.js";
import { runLoad, type LoadOptions, type LoadResult } from "./lib/load.js";
import { cpuBetween, mainThreadCpu, treeCpu } from "./lib/process-cpu.js";
import { BENCH_ADMIN_TOKEN, startBareServer, startSluiceServer } from "./lib/processes.js";

const SOURCE_CODE = `export default {
  name: "bench-http",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) {
    this.$emit(event.body, { summary: "bench" });
    this.http.respond({ status: 200, body: { ok: true } });
  },
};`;

const ASYNC_SOURCE_CODE = `export default {
  name: "bench-http-async",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

/**
 * CPU µs per request over the timed load, by part: the server's event loop (its main thread),
 * the whole server process, the processes it started (runners), and the load generator (this
 * process). Steadier than request rates on a machine whose speed moves: a change that takes
 * work off the event loop shows here first. Undefined where /proc is missing.
 */
export interface CpuPerRequest {
  eventLoop: number;
  server: number;
  /** Undefined when it cannot be told: see measuredLoad. */
  runners?: number;
  loadGenerator: number;
}

type Measured = LoadResult & { cpuMicrosPerRequest?: CpuPerRequest };

export interface IngestReport {
  bare: Measured;
  ingestCustomResponse: Measured & { ratio: number };
  ingestAccepted: Measured & { ratio: number; processed: number; drainSeconds: number };
  summaries: Measured & { ratio: number };
}

/** Runs `options` against the server `pid` and reads what each part spent per request. */
async function measuredLoad(pid: number, options: LoadOptions): Promise<Measured> {
  const tree = treeCpu(pid);
  const loop = mainThreadCpu(pid);
  const own = process.cpuUsage();
  const result = await runLoad(options);
  const used = cpuBetween(tree, treeCpu(pid));
  const loopAfter = mainThreadCpu(pid);
  const ownUsed = process.cpuUsage(own);
  if (!used || loop === undefined || loopAfter === undefined) return result;
  const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, result.total));
  return {
    ...result,
    cpuMicrosPerRequest: {
      eventLoop: perRequest(loopAfter - loop),
      server: perRequest(used.ownSeconds),
      // A runner stopped during the load may take its ticks along (killed before its parent
      // reaped it): the runners' figure then reads low, and below zero says nothing at all.
      runners: used.childrenSeconds >= 0 ? perRequest(used.childrenSeconds) : undefined,
      loadGenerator: perRequest((ownUsed.user + ownUsed.system) / 1e6),
    },
  };
}

export async function runIngestBench(options: { durationSeconds: number; connections: number }): Promise<IngestReport> {
  const body = JSON.stringify({ hello: "world", n: 42, tags: ["a", "b"] });
  const headers = { "content-type": "application/json" };

  const bare = await startBareServer();
  let bareResult: Measured;
  try {
    await runLoad({ url: bare.url, method: "POST", body, headers, connections: options.connections, durationSeconds: 2 });
    bareResult = await measuredLoad(bare.child.pid!, { url: bare.url, method: "POST", body, headers, ...options });
  } finally {
    await bare.stop();
  }

  const sluice = await startSluiceServer();
  try {
    const key = await createAccount(sluice.url, BENCH_ADMIN_TOKEN, "bench");
    const custom = await call(sluice.url, "POST", "/sources", { key, json: { component_code: SOURCE_CODE } });
    const customUrl = custom.data.configured_props.http.endpoint_url as string;
    await runLoad({ url: customUrl, method: "POST", body, headers, connections: options.connections, durationSeconds: 2 });
    const pid = sluice.child.pid!;
    const customResult = await measuredLoad(pid, { url: customUrl, method: "POST", body, headers, ...options });

    const accepted = await call(sluice.url, "POST", "/sources", { key, json: { component_code: ASYNC_SOURCE_CODE } });
    const acceptedUrl = accepted.data.configured_props.http.endpoint_url as string;
    const before = await invocations(sluice.url, key);
    const acceptedResult = await measuredLoad(pid, { url: acceptedUrl, method: "POST", body, headers, ...options });
    const ok = acceptedResult.total - acceptedResult.non2xx - acceptedResult.errors;
    const drainStart = Date.now();
    await waitFor(async () => (await invocations(sluice.url, key)) - before >= ok, 120_000);
    const processed = (await invocations(sluice.url, key)) - before;

    const summariesUrl = `${sluice.url}/v1/sources/${custom.data.id}/event_summaries?limit=10`;
    const summaries = await measuredLoad(pid, { url: summariesUrl, headers: { authorization: `Bearer ${key}` }, ...options });

    return {
      bare: bareResult,
      ingestCustomResponse: { ...customResult, ratio: customResult.requestsPerSecond / bareResult.requestsPerSecond },
      ingestAccepted: {
        ...acceptedResult,
        ratio: acceptedResult.requestsPerSecond / bareResult.requestsPerSecond,
        processed,
        drainSeconds: (Date.now() - drainStart) / 1000,
      },
      summaries: { ...summaries, ratio: summaries.requestsPerSecond / bareResult.requestsPerSecond },
    };
  } finally {
    await sluice.stop();
  }
}

async function invocations(baseUrl: string, key: string): Promise<number> {
  const me = await call(baseUrl, "GET", "/users/me", { key });
  return me.data.billing_period_invocations as number;
}
