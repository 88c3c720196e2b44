import type { RouteModule } from "./index.js";

export const healthRoutes: RouteModule = async (app) => {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
};
