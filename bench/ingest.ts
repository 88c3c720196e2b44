// HTTP-source ingest: request → user code → emit stored → response, against a bare node:http
// server measured in the same run (docs/architecture.md, "Performance targets"), plus the event-summaries read path.
import { call, createAccount, waitFor } from "./lib/api.js";
import { runLoad, type LoadResult } from "./lib/load.js";
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

export interface IngestReport {
  bare: LoadResult;
  ingestCustomResponse: LoadResult & { ratio: number };
  ingestAccepted: LoadResult & { ratio: number; processed: number; drainSeconds: number };
  summaries: LoadResult & { ratio: number };
}

export async function runIngestBench(options: { durationSeconds: number; connections: number }): Promise<IngestReport> {
  const body = JSON.stringify({ hello: "world", n: 42, tags: ["a", "b"] });
  const headers = { "content-type": "application/json" };

  const bare = await startBareServer();
  let bareResult: LoadResult;
  try {
    await runLoad({ url: bare.url, method: "POST", body, headers, connections: options.connections, durationSeconds: 2 });
    bareResult = await runLoad({ url: bare.url, method: "POST", body, headers, ...options });
  } finally {
    await bare.stop();
  }

  const sluice = await startSluiceServer();
  try {
    const key = await createAccount(sluice.url, BENCH_ADMIN_TOKEN, "bench");
    const custom = await call(sluice.url, "POST", "/sources", { key, json: { component_code: SOURCE_CODE } });
    const customUrl = custom.data.configured_props.http.endpoint_url as string;
    await runLoad({ url: customUrl, method: "POST", body, headers, connections: options.connections, durationSeconds: 2 });
    const customResult = await runLoad({ url: customUrl, method: "POST", body, headers, ...options });

    const accepted = await call(sluice.url, "POST", "/sources", { key, json: { component_code: ASYNC_SOURCE_CODE } });
    const acceptedUrl = accepted.data.configured_props.http.endpoint_url as string;
    const before = await invocations(sluice.url, key);
    const acceptedResult = await runLoad({ url: acceptedUrl, method: "POST", body, headers, ...options });
    const ok = acceptedResult.total - acceptedResult.non2xx - acceptedResult.errors;
    const drainStart = Date.now();
    await waitFor(async () => (await invocations(sluice.url, key)) - before >= ok, 120_000);
    const processed = (await invocations(sluice.url, key)) - before;

    const summariesUrl = `${sluice.url}/v1/sources/${custom.data.id}/event_summaries?limit=10`;
    const summaries = await runLoad({ url: summariesUrl, headers: { authorization: `Bearer ${key}` }, ...options });

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
