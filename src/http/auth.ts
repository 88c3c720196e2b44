// Bearer authentication for /v1 routes, and the separate admin-token check. Both count failed
// attempts per client address (auth-failures.ts).
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Actor } from "../domain/context.js";
import { authenticate, recentlyAuthenticated } from "../domain/users/authenticate.js";
import { ServiceError } from "../lib/errors.js";
import type { Services } from "../services.js";
import type { AccountRateLimit } from "./account-rate-limit.js";
import type { AuthFailures } from "./auth-failures.js";

declare module "fastify" {
  interface FastifyRequest {
    actor?: Actor;
  }
}

export function bearerToken(request: { headers: { authorization?: string | string[] } }): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

const isUnauthorized = (error: unknown) => error instanceof ServiceError && error.code === "UNAUTHORIZED";

/**
 * Adds API-key authentication to every route registered in `scope`, then the account's rate
 * limit. Keys that authenticated are remembered for a few seconds per process
 * (domain/users/auth-cache.ts).
 */
export function requireApiKey(scope: FastifyInstance, services: Services, failures: AuthFailures, rateLimit: AccountRateLimit): void {
  const clock = services.ctx.clock;
  // A callback hook with a synchronous path for a key seen moments ago (the common case of a
  // client polling the API): no promise, no await, one lookup in a Map. Any other key goes
  // through `authenticate`, which reads the database.
  scope.addHook("onRequest", (request, reply, done) => {
    const now = clock.now();
    try {
      failures.check(request.ip, now);
    } catch (error) {
      return done(error as Error);
    }
    const apiKey = bearerToken(request);
    const cached = recentlyAuthenticated(services.ctx, apiKey, now);
    if (cached) return done(admit(request, reply, rateLimit, cached, now));
    authenticate({ ctx: services.ctx, apiKey }).then(
      (actor) => done(admit(request, reply, rateLimit, actor, clock.now())),
      (error: unknown) => {
        if (isUnauthorized(error)) failures.record(request.ip, clock.now());
        done(error as Error);
      },
    );
  });
}

/** Sets the request's account and counts it in the account's rate limit: the 429 past it, else nothing. */
function admit(request: FastifyRequest, reply: FastifyReply, rateLimit: AccountRateLimit, actor: Actor, nowMs: number) {
  request.actor = actor;
  const decision = rateLimit.take(actor.userId, nowMs);
  reply.headers(decision.headers);
  return decision.refusal;
}

/** The authenticated account; routes in an authenticated scope always have one. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new ServiceError("UNAUTHORIZED", "missing or invalid API key");
  return request.actor;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Admin routes answer 404 when no admin token is configured, 401 for a wrong token. */
export function requireAdminToken(scope: FastifyInstance, adminToken: string | undefined, failures: AuthFailures, now: () => number): void {
  scope.addHook("onRequest", async (request) => {
    if (!adminToken) throw new ServiceError("NOT_FOUND", "the admin API is disabled (set SLUICE_ADMIN_TOKEN)");
    failures.check(request.ip, now());
    const given = bearerToken(request);
    if (!given || !timingSafeEqual(digest(given), digest(adminToken))) {
      failures.record(request.ip, now());
      throw new ServiceError("UNAUTHORIZED", "missing or invalid admin token");
    }
  });
}
