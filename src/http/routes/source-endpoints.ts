// Public HTTP endpoints of sources (no API key): /e/<endpoint key>, any method, any body up
// to 512 KB. The hot ingest path: one cached lookup, one queued job, then 200.
import type { FastifyReply } from "fastify";
import { ExecutionFailedError, receiveEndpointRequest } from "../../domain/sources/endpoint-request.js";
import { acceptRawBodies, sendResponseRecord } from "../public-endpoints.js";
import type { RouteModule } from "./index.js";

const ACCEPTED = '{"status":"accepted"}';

export const sourceEndpointRoutes: RouteModule = async (app, { services }) => {
  // Any content type, read as raw bytes: the code gets bodyRaw and, for JSON, body.
  acceptRawBodies(app);
  const deps = { ctx: services.ctx, runner: services.runner, queue: services.queue };

  const handler = async (request: any, reply: FastifyReply) => {
    const key = request.params.key as string;
    const rawUrl = request.raw.url ?? "/";
    const pathOnly = rawUrl.split("?")[0] ?? "/";
    const path = pathOnly.slice(pathOnly.indexOf(key) + key.length) || "/";
    const bodyRaw = Buffer.isBuffer(request.body) ? request.body.toString("utf8") : "";
    try {
      const outcome = await receiveEndpointRequest({
        ...deps,
        key,
        request: { method: request.method, path, query: request.query ?? {}, headers: request.headers, bodyRaw, contentType: request.headers["content-type"] },
      });
      if (outcome.kind === "accepted") return reply.status(200).type("application/json; charset=utf-8").send(ACCEPTED);
      return sendResponseRecord(reply, outcome.response);
    } catch (error) {
      if (error instanceof ExecutionFailedError) {
        return reply.status(500).send({ error: `the source failed before responding (${error.failure.kind}): ${error.failure.message}`, code: error.failure.kind.toUpperCase() });
      }
      throw error;
    }
  };
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"], url: "/e/:key", handler, schema: { hide: true } });
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"], url: "/e/:key/*", handler, schema: { hide: true } });
};
