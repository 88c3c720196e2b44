// Public HTTP triggers of workflows: any method on /w/<endpoint key>[/<path>], no API key
// (public-endpoints.ts serves them). Bodies reach the workflow as sent, parsed into the event
// by the domain.
import { receiveEndpointRequest } from "../../domain/endpoints/receive-endpoint-request.js";
import { workflowEndpoint } from "../../domain/workflows/workflow-endpoint.js";
import { workflowDeps, type Services } from "../../services.js";
import type { PublicEndpoint } from "../public-endpoints.js";

export function workflowEndpoints(services: Services): PublicEndpoint {
  const kind = workflowEndpoint(workflowDeps(services));
  return { prefix: "/w/", receive: (request) => receiveEndpointRequest(kind, request) };
}
