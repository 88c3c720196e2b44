// Public HTTP endpoints of sources (no API key): /e/<endpoint key>[/<path>], the usual
// methods, any body up to 512 KB (public-endpoints.ts serves them). The hot ingest path: one
// cached lookup, then a queued job and 200, or a run and the response its code gave.
import { ExecutionFailedError, receiveEndpointRequest } from "../../domain/sources/endpoint-request.js";
import type { Services } from "../../services.js";
import type { PublicEndpoint } from "../public-endpoints.js";

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

export function sourceEndpoints(services: Services): PublicEndpoint {
  const deps = { ctx: services.ctx, runner: services.runner, queue: services.queue };
  return {
    prefix: "/e/",
    methods: METHODS,
    async handle(request) {
      try {
        return await receiveEndpointRequest({
          ...deps,
          key: request.key,
          request: { method: request.method, path: request.rawPath, query: request.query, headers: request.headers, bodyRaw: request.body.toString("utf8"), contentType: request.headers["content-type"] },
        });
      } catch (error) {
        if (!(error instanceof ExecutionFailedError)) throw error;
        const { kind, message } = error.failure;
        return { status: 500, headers: {}, body: { kind: "json", value: { error: `the source failed before responding (${kind}): ${message}`, code: kind.toUpperCase() } } };
      }
    },
  };
}
