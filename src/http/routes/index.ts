// Fastify route modules of the API. The public endpoints of sources and workflows
// (source-endpoints.ts, workflow-endpoints.ts) are served in front of Fastify (public-endpoints.ts).
import { accountRoutes } from "./accounts.js";
import { apiKeyRoutes } from "./api-keys.js";
import { componentRoutes } from "./components.js";
import { deliveryRoutes } from "./deliveries.js";
import { sourceEventRoutes } from "./source-events.js";
import { sourceRoutes } from "./sources.js";
import { subscriptionRoutes } from "./subscriptions.js";
import { userRoutes } from "./users.js";
import { webhookRoutes } from "./webhooks.js";
import { workflowEventRoutes } from "./workflow-events.js";
import { workflowTestRoutes } from "./workflow-test.js";
import { workflowRoutes } from "./workflows.js";
import type { RouteModule } from "./route-module.js";

// The health route (health.ts) takes its type from here.
export type { RouteModule };

/** Routes under /v1 that need an API key. */
export const authenticatedRoutes: RouteModule = async (app, { services }) => {
  for (const routes of [
    userRoutes,
    apiKeyRoutes,
    accountRoutes,
    webhookRoutes,
    deliveryRoutes,
    subscriptionRoutes,
    componentRoutes,
    sourceRoutes,
    sourceEventRoutes,
    workflowRoutes,
    workflowEventRoutes,
    workflowTestRoutes,
  ]) {
    await app.register(routes, { services });
  }
};
