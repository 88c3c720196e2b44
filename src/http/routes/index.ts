// Fastify route modules of the API. The public endpoints of sources and workflows
// (source-endpoints.ts, workflow-endpoints.ts) are served in front of Fastify (public-endpoints.ts).
import { accountRoutes } from "./accounts.js";
import { apiKeyRoutes } from "./api-keys.js";
import { componentRoutes } from "./components.js";
import { dataStoreRoutes } from "./data-stores.js";
import { componentPropsRoutes } from "./component-props.js";
import { deliveryRoutes } from "./deliveries.js";
import { oauthConnectRoutes } from "./oauth-connect.js";
import { sourceEventRoutes } from "./source-events.js";
import { sourceRoutes } from "./sources.js";
import { subscriptionRoutes } from "./subscriptions.js";
import { userRoutes } from "./users.js";
import { webhookRoutes } from "./webhooks.js";
import { workflowEventRoutes } from "./workflow-events.js";
import { workflowRunRoutes } from "./workflow-runs.js";
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
    oauthConnectRoutes,
    webhookRoutes,
    deliveryRoutes,
    subscriptionRoutes,
    componentRoutes,
    componentPropsRoutes,
    sourceRoutes,
    sourceEventRoutes,
    workflowRoutes,
    workflowEventRoutes,
    dataStoreRoutes,
    workflowRunRoutes,
    workflowTestRoutes,
  ]) {
    await app.register(routes, { services });
  }
};
