// Load generation with autocannon (a maintained HTTP benchmarking library), bounded in time
// and only ever aimed at loopback servers this bench started itself.
import autocannon from "autocannon";

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  connections?: number;
  durationSeconds?: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(target.hostname))
    throw new Error(`refusing to load a non-loopback address: ${target.hostname}`);
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    body: options.body,
    headers: options.headers,
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? 10,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
