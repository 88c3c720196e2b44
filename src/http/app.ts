// The Fastify application: conventions (errors, JSON, validation, projection, OpenAPI) and
// the route modules, grouped by who may call them.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { Logger } from "pino";
import { newRequestId } from "../lib/ids.js";
import type { Services } from "../services.js";
import { requireAdminToken, requireApiKey } from "./auth.js";
import { createAccountRateLimit } from "./account-rate-limit.js";
import { createAuthFailures } from "./auth-failures.js";
import { createLiveTailSlots } from "./live-tail-slots.js";
import { installErrorHandling } from "./error-handler.js";
import { installJsonParser } from "./json-body.js";
import { installProjection } from "./projection.js";
import { formatValidationErrors, installEmptyBodyDefault, installNulGuard, installValidation } from "./validation.js";
import { adminRoutes } from "./routes/admin.js";
import { adminJobRoutes } from "./routes/admin-jobs.js";
import { adminOAuthAppRoutes } from "./routes/admin-oauth-apps.js";
import { healthRoutes } from "./routes/health.js";
import { authenticatedRoutes } from "./routes/index.js";
import { sourceEndpoints } from "./routes/source-endpoints.js";
import { workflowEndpoints } from "./routes/workflow-endpoints.js";
import { apphookEndpoints } from "./routes/apphook-endpoints.js";
import { runLinkEndpoints } from "./routes/run-links.js";
import { serverFactory } from "./http-server.js";
import { cachedReads } from "./cached-reads.js";
import { installMetricsRoute } from "./metrics-route.js";
import { installDashboard } from "./dashboard.js";
import { installOAuthCallback } from "./oauth-callback.js";
import { publicEndpointServer } from "./public-endpoints.js";

export const API_BODY_LIMIT = 5 * 1024 * 1024;

export async function buildHttpApp(services: Services, logger: Logger): Promise<FastifyInstance> {
  const config = services.ctx.config;
  const authFailures = createAuthFailures(config.authFailuresPerMinute);
  const rateLimit = createAccountRateLimit(config.apiRateLimitPerMinute);
  const { metrics } = services.ctx;
  const sources = sourceEndpoints(services);
  const workflows = workflowEndpoints(services);
  const apphooks = apphookEndpoints(services);
  const runLinks = runLinkEndpoints(services);
  const app: FastifyInstance = Fastify({
    // request.ip: the client named by X-Forwarded-For only behind a proxy the operator vouches for.
    trustProxy: config.trustProxy,
    // Served in front of Fastify: the public endpoints of sources, workflows, apphooks and runs'
    // resume/cancel links (ADR 0019; apphook requests feed sources and are counted with theirs),
    // and the event-summary pages the page cache holds (ADR 0047).
    serverFactory: serverFactory([
      publicEndpointServer([sources, workflows, apphooks, runLinks], logger, (endpoint, status) =>
        metrics.ingestRequest(endpoint === workflows || endpoint === runLinks ? "workflow" : "source", status),
      ),
      cachedReads({ ctx: services.ctx, failures: authFailures, rateLimit }),
    ]),
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: API_BODY_LIMIT,
    genReqId: newRequestId,
    requestIdHeader: false,
    // Per-request lines are too costly on the ingest path; failures are logged below.
    logController: new LogController({ disableRequestLogging: true }),
    schemaErrorFormatter: formatValidationErrors,
    forceCloseConnections: true,
    // A data store key (up to 512 bytes) is a path parameter, percent-encoded up to three times as long.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
  }) as unknown as FastifyInstance;
  app.decorate("liveTailSlots", createLiveTailSlots(config.maxSsePerAccount));
  // Hooks on every request take a callback, not a promise: cheaper on the hot paths.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    metrics.httpRequest(request.routeOptions.url ?? "unmatched", reply.statusCode);
    if (reply.statusCode >= 500) request.log.warn({ url: request.url, status: reply.statusCode }, "request failed");
    done();
  });
  // Responses are plain JSON: schemas document them (OpenAPI) without filtering fields.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installValidation(app);
  installEmptyBodyDefault(app);
  installNulGuard(app, ["params"]);
  installJsonParser(app);
  installErrorHandling(app);
  installProjection(app);

  await app.register(swagger, {
    openapi: {
      info: { title: "Sluice REST API", version: "v1", description: "Pipedream REST API v1 compatible event platform" },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, { services });
  installDashboard(app);
  installOAuthCallback(app, services.ctx);
  installMetricsRoute(app, metrics, services.ctx.config.metricsToken);
  await app.register(
    async (scope) => {
      requireAdminToken(scope, config.adminToken, authFailures, () => services.ctx.clock.now());
      installNulGuard(scope, ["query", "body"]);
      await scope.register(adminRoutes, { services });
      await scope.register(adminJobRoutes, { services });
      await scope.register(adminOAuthAppRoutes, { services });
    },
    { prefix: "/v1/admin" },
  );
  await app.register(
    async (scope) => {
      requireApiKey(scope, services, authFailures, rateLimit);
      installNulGuard(scope, ["query", "body"]);
      await scope.register(authenticatedRoutes, { services });
    },
    { prefix: "/v1" },
  );
  return app;
}
