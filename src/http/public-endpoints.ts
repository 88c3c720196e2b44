// The public HTTP endpoints of sources (/e/<key>[/<path>]), workflows (/w/<key>[/<path>]) and
// connected accounts' apphooks (/a/<key>): no API key, bodies up to 512 KB taken as raw bytes
// whatever their content type, each handed to its domain pipeline (sources and workflows share
// domain/endpoints/receive-endpoint-request.ts), and the reply written from the response
// record it gave or from the failure, as JSON, the same way for all.
//
// They are the ingest path the benchmarks measure (docs/architecture.md, "Performance targets"), so node:http serves them directly, in
// front of Fastify (http-server.ts, ADR 0019): Fastify's request and reply objects, routing,
// body parser and send pipeline were about a tenth of the event loop's time per ingest
// request. What Fastify gives every other route is kept: the x-request-id header, errors as
// JSON from the same mapping (error-handler.ts), the same query-string parser, and a warning
// in the log for every 5xx. A request this cannot take (an unknown method, no key) is left to
// Fastify, which answers its JSON 404.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { parse as parseQuery } from "fast-querystring";
import type { Logger } from "pino";
import type { EndpointRequest } from "../domain/endpoints/endpoint-kind.js";
import { ExecutionFailedError } from "../domain/endpoints/execution-failed.js";
import { ServiceError } from "../lib/errors.js";
import { newRequestId } from "../lib/ids.js";
import { safeDecode } from "../lib/safe-decode.js";
import type { HttpResponseRecord } from "../runtime/code-runner.js";
import { internalErrorBody, serviceErrorReply } from "./error-handler.js";
import type { FrontHandler } from "./http-server.js";

export const PUBLIC_ENDPOINT_BODY_LIMIT = 512 * 1024;

/** Longest endpoint key taken, as for the API's path parameters (app.ts, maxParamLength). */
const MAX_KEY_LENGTH = 256;

export interface PublicEndpoint {
  /** "/e/", "/w/" or "/a/". */
  prefix: string;
  /** Methods answered; any when absent. */
  methods?: ReadonlySet<string>;
  /** The domain's answer to a request addressed under the prefix by its key. */
  receive(request: EndpointRequest): Promise<HttpResponseRecord>;
}

/** Serves a request addressed to one of `endpoints` and returns true; false leaves it to Fastify. */
export function publicEndpointServer(
  endpoints: PublicEndpoint[],
  logger: Logger,
  onAnswered?: (endpoint: PublicEndpoint, status: number) => void,
): FrontHandler {
  return (req, res) => {
    const url = req.url ?? "/";
    const endpoint = endpoints.find((e) => url.startsWith(e.prefix));
    if (!endpoint || (endpoint.methods && !endpoint.methods.has(req.method ?? ""))) return false;
    const target = targetOf(url, endpoint.prefix);
    if (!target) return false;
    void serve(endpoint, target, req, res, logger).then(() => onAnswered?.(endpoint, res.statusCode));
    return true;
  };
}

type Target = Pick<EndpointRequest, "key" | "rawPath" | "query">;

function targetOf(url: string, prefix: string): Target | undefined {
  const q = url.indexOf("?");
  const rest = (q < 0 ? url : url.slice(0, q)).slice(prefix.length);
  const slash = rest.indexOf("/");
  const rawKey = slash < 0 ? rest : rest.slice(0, slash);
  if (rawKey === "" || rawKey.length > MAX_KEY_LENGTH) return undefined;
  const key = safeDecode(rawKey);
  if (key === undefined) return undefined;
  return {
    key,
    rawPath: slash < 0 ? "/" : rest.slice(slash),
    query: q < 0 ? {} : (parseQuery(url.slice(q + 1)) as Record<string, unknown>),
  };
}

async function serve(endpoint: PublicEndpoint, target: Target, req: IncomingMessage, res: ServerResponse, logger: Logger): Promise<void> {
  const requestId = newRequestId();
  let record: HttpResponseRecord;
  try {
    const body = await readBody(req, PUBLIC_ENDPOINT_BODY_LIMIT);
    record = await endpoint.receive({
      method: req.method ?? "GET",
      ...target,
      url: req.url ?? "/",
      headers: req.headers,
      body,
      clientIp: req.socket.remoteAddress ?? "",
    });
  } catch (error) {
    record = errorRecord(error, requestId, logger);
  }
  if (res.destroyed) return; // the client went away
  send(res, record, requestId, logger);
  if (res.statusCode >= 500) logger.warn({ url: req.url, status: res.statusCode }, "request failed");
}

const tooLarge = () => new ServiceError("PAYLOAD_TOO_LARGE", "request body is too large");

/** The body as bytes; a ServiceError once it is over `limit` (by its declared length or as read). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers["content-length"]) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Answered now; node:http reads and drops the rest once the response is finished.
      req.off("data", onData);
      req.off("end", onEnd);
      reject(tooLarge());
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", reject);
  });
}

/** The answer to a request that failed, the same for every kind of endpoint. */
function errorRecord(error: unknown, requestId: string, logger: Logger): HttpResponseRecord {
  if (error instanceof ServiceError) {
    const { status, headers, body } = serviceErrorReply(error);
    return { status, headers, body: { kind: "json", value: body } };
  }
  if (error instanceof ExecutionFailedError)
    return { status: 500, headers: {}, body: { kind: "json", value: { error: error.message, code: error.code } } };
  logger.error({ err: error }, "unhandled error");
  return { status: 500, headers: {}, body: { kind: "json", value: internalErrorBody(requestId) } };
}

function send(res: ServerResponse, record: HttpResponseRecord, requestId: string, logger: Logger): void {
  const { body, contentType } = encode(record.body);
  const headers: OutgoingHttpHeaders = { "x-request-id": requestId, ...record.headers };
  headers["content-type"] ??= contentType;
  // The length is the body's, whatever the code said; framing is not the code's to choose.
  headers["content-length"] = Buffer.byteLength(body);
  delete headers["transfer-encoding"];
  try {
    res.writeHead(Number(record.status) || 200, headers);
  } catch (error) {
    // A header name or value that HTTP cannot carry (node:http refuses it before writing).
    logger.warn({ err: error }, "a response record had an invalid header");
    const refusal = JSON.stringify({ error: `the response the code gave cannot be sent: ${(error as Error).message}` });
    res.writeHead(500, {
      "x-request-id": requestId,
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(refusal),
    });
    res.end(refusal);
    return;
  }
  res.end(body);
}

function encode(body: HttpResponseRecord["body"]): { body: string | Buffer; contentType: string } {
  switch (body.kind) {
    case "none":
      return { body: "", contentType: "text/plain; charset=utf-8" };
    case "text":
      return { body: body.text, contentType: "text/plain; charset=utf-8" };
    case "json":
      return { body: JSON.stringify(body.value), contentType: "application/json; charset=utf-8" };
    case "base64":
      return { body: Buffer.from(body.data, "base64"), contentType: "application/octet-stream" };
  }
}
