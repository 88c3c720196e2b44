// Public HTTP triggers of workflows: any method on /w/<endpoint key>[/<path>], no API key
// (public-endpoints.ts serves them). Bodies reach the workflow as sent, parsed into the event
// by the domain.
import { triggerWorkflowByHttp } from "../../domain/workflows/http-trigger.js";
import { workflowDeps, type Services } from "../../services.js";
import { safeDecode, type PublicEndpoint } from "../public-endpoints.js";

export function workflowEndpoints(services: Services): PublicEndpoint {
  const deps = workflowDeps(services);
  return {
    prefix: "/w/",
    handle: (request) =>
      triggerWorkflowByHttp(deps, {
        endpointKey: request.key,
        method: request.method,
        path: safeDecode(request.rawPath) ?? request.rawPath,
        query: request.query,
        headers: request.headers,
        rawBody: request.body,
        url: `${services.ctx.config.publicUrl}${request.url}`,
        clientIp: request.clientIp,
      }),
  };
}
