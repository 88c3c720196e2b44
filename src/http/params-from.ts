// Endpoints whose parameters go in the query string (subscriptions, webhooks) also accept
// them as a JSON body; the query string wins where both carry a field.
import type { FastifyRequest } from "fastify";

export function paramsFrom<T>(request: FastifyRequest): T {
  const body = request.body && typeof request.body === "object" && !Array.isArray(request.body) ? request.body : {};
  return { ...(body as object), ...(request.query as object) } as T;
}
