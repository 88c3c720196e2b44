// Public HTTP triggers of workflows: any method on /w/<endpoint key>[/<path>], no API key.
import type { FastifyReply, FastifyRequest } from "fastify";
import { workflowDeps } from "../../domain/workflows/deps.js";
import { triggerWorkflowByHttp } from "../../domain/workflows/http-trigger.js";
import type { HttpResponseRecord } from "../../runtime/contract.js";
import type { RouteModule } from "./index.js";

export const WORKFLOW_BODY_LIMIT = 512 * 1024;

export const workflowEndpointRoutes: RouteModule = async (app, { services }) => {
  // Bodies reach the workflow as sent (parsed into the event by the domain), any content type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: WORKFLOW_BODY_LIMIT }, (_request, body, done) => done(null, body));

  const handler = async (request: FastifyRequest<{ Params: { key: string; "*"?: string } }>, reply: FastifyReply) => {
    const response = await triggerWorkflowByHttp(workflowDeps(services), {
      endpointKey: request.params.key,
      method: request.method,
      path: `/${request.params["*"] ?? ""}`,
      query: (request.query ?? {}) as Record<string, unknown>,
      headers: request.headers,
      rawBody: Buffer.isBuffer(request.body) ? request.body : undefined,
      url: `${services.ctx.config.publicUrl}${request.url}`,
      clientIp: request.ip,
    });
    return sendRecord(reply, response);
  };
  const options = { bodyLimit: WORKFLOW_BODY_LIMIT, schema: { hide: true } };
  app.all("/w/:key", options, handler);
  app.all("/w/:key/*", options, handler);
};

function sendRecord(reply: FastifyReply, record: HttpResponseRecord) {
  reply.status(record.status);
  for (const [name, value] of Object.entries(record.headers)) reply.header(name, value);
  const body = record.body;
  switch (body.kind) {
    case "none":
      return reply.send("");
    case "text":
      return reply.send(body.text);
    case "base64":
      return reply.send(Buffer.from(body.data, "base64"));
    case "json":
      if (!reply.hasHeader("content-type")) reply.header("content-type", "application/json; charset=utf-8");
      return reply.send(JSON.stringify(body.value));
  }
}
