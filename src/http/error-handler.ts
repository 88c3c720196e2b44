// Maps every error to a JSON body with a top-level `error` string, in one place.
// Bad input is always a 4xx; only faults of the service become an opaque 500.
import type { FastifyError, FastifyInstance } from "fastify";
import { ServiceError, type ServiceErrorCode } from "../lib/errors.js";

const STATUS: Record<ServiceErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  LIMIT_EXCEEDED: 429,
  UPSTREAM: 502,
};

/** Framework and plugin errors speak the same codes as ServiceError where one fits. */
const CODE_BY_STATUS: Record<number, string> = {
  400: "VALIDATION",
  401: "UNAUTHORIZED",
  404: "NOT_FOUND",
  413: "PAYLOAD_TOO_LARGE",
  429: "LIMIT_EXCEEDED",
};

/** The reply to a ServiceError: its status, body and (for a 429) when to come back. */
export function serviceErrorReply(error: ServiceError): {
  status: number;
  headers: Record<string, string>;
  body: { error: string; code: ServiceErrorCode };
} {
  // Every 429 tells the client when to come back; a minute when the verb did not say.
  const retryAfter = error.details.retryAfterSeconds ?? (error.code === "LIMIT_EXCEEDED" ? 60 : undefined);
  const headers: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": String(Math.max(1, Math.ceil(retryAfter))) };
  return { status: STATUS[error.code], headers, body: { error: error.message, code: error.code } };
}

/** The body of a 500 for a fault of the service: nothing of the fault, the request's id to find it in the log. */
export const internalErrorBody = (requestId: string) => ({ error: "internal server error", request_id: requestId });

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError | Error, request, reply) => {
    if (error instanceof ServiceError) {
      const { status, headers, body } = serviceErrorReply(error);
      return reply.status(status).headers(headers).send(body);
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      return reply.status(400).send({ error: fastifyError.message, code: "VALIDATION" });
    }
    const status = fastifyError.statusCode;
    if (status && status >= 400 && status < 500) {
      if (status === 429) reply.header("retry-after", reply.getHeader("retry-after") ?? "60");
      return reply.status(status).send({ error: friendlyMessage(fastifyError), code: CODE_BY_STATUS[status] ?? fastifyError.code });
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send(internalErrorBody(request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ error: "not found", path: request.url.split("?")[0] });
  });
}

function friendlyMessage(error: FastifyError): string {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "request body is too large";
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "unsupported content type; send application/json";
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "malformed JSON body";
    default:
      return error.message;
  }
}
