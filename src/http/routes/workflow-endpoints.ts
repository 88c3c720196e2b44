// Public HTTP triggers of workflows: any method on /w/<endpoint key>[/<path>], no API key.
import type { FastifyReply, FastifyRequest } from "fastify";
import { workflowDeps } from "../../domain/workflows/deps.js";
import { triggerWorkflowByHttp } from "../../domain/workflows/http-trigger.js";
import { acceptRawBodies, PUBLIC_ENDPOINT_BODY_LIMIT, sendResponseRecord } from "../public-endpoints.js";
import type { RouteModule } from "./index.js";

export const workflowEndpointRoutes: RouteModule = async (app, { services }) => {
  // Bodies reach the workflow as sent (parsed into the event by the domain), any content type.
  acceptRawBodies(app);
  const deps = workflowDeps(services);

  const handler = async (request: FastifyRequest<{ Params: { key: string; "*"?: string } }>, reply: FastifyReply) => {
    const response = await triggerWorkflowByHttp(deps, {
      endpointKey: request.params.key,
      method: request.method,
      path: `/${request.params["*"] ?? ""}`,
      query: (request.query ?? {}) as Record<string, unknown>,
      headers: request.headers,
      rawBody: Buffer.isBuffer(request.body) ? request.body : undefined,
      url: `${services.ctx.config.publicUrl}${request.url}`,
      clientIp: request.ip,
    });
    return sendResponseRecord(reply, response);
  };
  const options = { bodyLimit: PUBLIC_ENDPOINT_BODY_LIMIT, schema: { hide: true } };
  app.all("/w/:key", options, handler);
  app.all("/w/:key/*", options, handler);
};
