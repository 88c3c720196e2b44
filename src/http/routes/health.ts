import type { RouteModule } from "./index.js";

export const healthRoutes: RouteModule = async (app, { services }) => {
  // The sandbox user code runs in (or would run in, on a process without the worker role).
  const body = { status: "ok", sandbox: services.runner.sandbox };
  app.get("/healthz", { schema: { hide: true } }, async () => body);
};
