// What the public HTTP endpoints of sources (/e/…) and workflows (/w/…) share: bodies up to
// 512 KB taken as raw bytes whatever their content type (the code gets bodyRaw and, for JSON,
// the parsed body), and the reply written from the response record user code gave.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { HttpResponseRecord } from "../runtime/contract.js";

export const PUBLIC_ENDPOINT_BODY_LIMIT = 512 * 1024;

export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: PUBLIC_ENDPOINT_BODY_LIMIT }, (_request, body, done) => done(null, body));
}

export function sendResponseRecord(reply: FastifyReply, record: HttpResponseRecord) {
  reply.status(Number(record.status) || 200);
  for (const [name, value] of Object.entries(record.headers ?? {})) reply.header(name, value);
  const body = record.body;
  switch (body.kind) {
    case "none":
      return reply.send("");
    case "text":
      if (!reply.hasHeader("content-type")) reply.type("text/plain; charset=utf-8");
      return reply.send(body.text);
    case "json":
      if (!reply.hasHeader("content-type")) reply.type("application/json; charset=utf-8");
      return reply.send(JSON.stringify(body.value));
    case "base64":
      if (!reply.hasHeader("content-type")) reply.type("application/octet-stream");
      return reply.send(Buffer.from(body.data, "base64"));
  }
}
