// /metrics for a process without the api role (a worker or scheduler): a bare node:http
// server on SLUICE_METRICS_PORT, with the same access rules as the API's /metrics.
import http from "node:http";
import type { Metrics } from "../lib/metrics.js";
import { metricsAccess } from "./metrics-access.js";

export async function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; token: string | undefined },
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const access =
      path === "/metrics" && req.method === "GET" ? metricsAccess(req.headers, req.socket.remoteAddress, options.token) : "hidden";
    if (access !== "allowed") {
      res.writeHead(access === "unauthorized" ? 401 : 404, { "content-type": "application/json; charset=utf-8" });
      res.end(
        JSON.stringify(
          access === "unauthorized"
            ? { error: "a valid metrics token is required", code: "UNAUTHORIZED" }
            : { error: "not found", code: "NOT_FOUND" },
        ),
      );
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": metrics.registry.contentType });
        res.end(text);
      },
      () => {
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const url =
    typeof address === "object" && address
      ? `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`
      : "";
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
