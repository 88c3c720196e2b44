// Bearer authentication for /v1 routes, and the separate admin-token check.
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Actor } from "../domain/context.js";
import { authenticate } from "../domain/users/authenticate.js";
import { ServiceError } from "../lib/errors.js";
import type { Services } from "../services.js";

declare module "fastify" {
  interface FastifyRequest {
    actor?: Actor;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Adds API-key authentication to every route registered in `scope`. A key that authenticated
 * is remembered for a few seconds (per app, bounded): API reads are hot, and a key lookup
 * was a database round trip on every request. Keys are never revoked faster than that today.
 */
export function requireApiKey(scope: FastifyInstance, services: Services): void {
  const recent = new Map<string, { actor: Actor; until: number }>();
  const TTL_MS = 5_000;
  const MAX_KEYS = 10_000;
  scope.addHook("onRequest", async (request) => {
    const apiKey = bearerToken(request);
    const now = services.ctx.clock.now();
    const cached = apiKey ? recent.get(apiKey) : undefined;
    if (cached && cached.until > now) {
      request.actor = cached.actor;
      return;
    }
    request.actor = await authenticate({ ctx: services.ctx, apiKey });
    if (recent.size >= MAX_KEYS) recent.clear();
    recent.set(apiKey as string, { actor: request.actor, until: now + TTL_MS });
  });
}

/** The authenticated account; routes in an authenticated scope always have one. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new ServiceError("UNAUTHORIZED", "missing or invalid API key");
  return request.actor;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Admin routes answer 404 when no admin token is configured, 401 for a wrong token. */
export function requireAdminToken(scope: FastifyInstance, adminToken: string | undefined): void {
  scope.addHook("onRequest", async (request) => {
    if (!adminToken) throw new ServiceError("NOT_FOUND", "the admin API is disabled (set SLUICE_ADMIN_TOKEN)");
    const given = bearerToken(request);
    if (!given || !timingSafeEqual(digest(given), digest(adminToken))) {
      throw new ServiceError("UNAUTHORIZED", "missing or invalid admin token");
    }
  });
}
