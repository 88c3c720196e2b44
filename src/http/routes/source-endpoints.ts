// Public HTTP endpoints of sources (no API key): /e/<endpoint key>[/<path>], the usual
// methods, any body up to 512 KB (public-endpoints.ts serves them). The hot ingest path: one
// cached lookup, then a queued job and 200, or a run and the response its code gave.
import { receiveEndpointRequest } from "../../domain/endpoints/receive-endpoint-request.js";
import { sourceEndpoint } from "../../domain/sources/source-endpoint.js";
import type { Services } from "../../services.js";
import type { PublicEndpoint } from "../public-endpoints.js";

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

export function sourceEndpoints(services: Services): PublicEndpoint {
  const kind = sourceEndpoint({ ctx: services.ctx, runner: services.runner, queue: services.queue });
  return { prefix: "/e/", methods: METHODS, receive: (request) => receiveEndpointRequest(kind, request) };
}
