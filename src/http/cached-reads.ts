// The API's hottest read, a page of event summaries that clients poll, answered on node:http in
// front of Fastify when the page cache holds it (ADR 0012), as the public endpoints are
// (public-endpoints.ts, ADR 0019). Fastify's routing, request and reply objects, hooks and send
// pipeline were most of the event loop's work for such a read (ADR 0047).
//
// Only the plain request is taken, and answered exactly as Fastify's route would answer it:
// GET, no query but `limit` (1–100 in plain digits), a key that authenticated moments ago, no
// failed authentication recorded within the minute (those are limited per client address,
// which a proxy may name), room in the account's rate limit (counted here as there), and the
// page in the cache. Anything else is left to Fastify, which answers it and fills the cache.
import type { Ctx } from "../domain/context.js";
import { cachedSummaryPage } from "../domain/events/list-event-summaries.js";
import { recentlyAuthenticated } from "../domain/users/authenticate.js";
import { newRequestId } from "../lib/ids.js";
import type { AccountRateLimit } from "./account-rate-limit.js";
import { bearerToken } from "./auth.js";
import type { AuthFailures } from "./auth-failures.js";
import type { FrontHandler } from "./http-server.js";

// The route as Fastify names it (for the metrics), and what matches it here: the source's id
// (letters, digits and "_", as every id; anything else is Fastify's to decode and check), then
// the limit if given. Sources only for now: the read the benchmarks measure and clients poll
// most; a workflow's streams go through Fastify, where the same page cache answers them.
const ROUTE = "/v1/sources/:id/event_summaries";
const PATTERN = /^\/v1\/sources\/([A-Za-z0-9_]{1,128})\/event_summaries(?:\?limit=([1-9][0-9]?|100))?$/;
const DEFAULT_LIMIT = 10;

export interface CachedReadDeps {
  ctx: Pick<Ctx, "db" | "summaryPages" | "authCache" | "clock" | "metrics">;
  failures: AuthFailures;
  rateLimit: AccountRateLimit;
}

/** Answers a cached read and returns true; false leaves the request to Fastify. */
export function cachedReads({ ctx, failures, rateLimit }: CachedReadDeps): FrontHandler {
  return (req, res) => {
    if (req.method !== "GET") return false;
    const match = PATTERN.exec(req.url ?? "");
    if (!match) return false;
    const now = ctx.clock.now();
    if (!failures.quiet(now)) return false;
    const actor = recentlyAuthenticated(ctx, bearerToken(req), now);
    if (!actor) return false;
    const json = cachedSummaryPage({
      ctx,
      table: "sources",
      emitterId: match[1]!,
      userId: actor.userId,
      stream: "",
      page: { limit: match[2] ? Number(match[2]) : DEFAULT_LIMIT },
      expand: false,
    });
    if (json === undefined) return false;
    const rateHeaders = rateLimit.takeIfAdmitted(actor.userId, now);
    if (!rateHeaders) return false; // Fastify counts it and answers the 429
    res.writeHead(200, {
      "x-request-id": newRequestId(),
      ...rateHeaders,
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(json),
    });
    res.end(json);
    ctx.metrics.httpRequest(ROUTE, 200);
    return true;
  };
}
