// GET /metrics on the API's port: the instance's Prometheus metrics, text format, for the
// clients metrics-access.ts lets in.
import type { FastifyInstance } from "fastify";
import type { Metrics } from "../lib/metrics.js";
import { metricsAccess } from "./metrics-access.js";

export function installMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    const access = metricsAccess(request.headers, request.socket.remoteAddress, token);
    if (access === "unauthorized")
      return reply
        .status(401)
        .header("www-authenticate", "Bearer")
        .send({ error: "a valid metrics token is required", code: "UNAUTHORIZED" });
    if (access === "hidden") return reply.status(404).send({ error: "not found", code: "NOT_FOUND" });
    const text = await metrics.registry.metrics();
    return reply.header("content-type", metrics.registry.contentType).send(text);
  });
}
