import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { getMe } from "../../domain/users/get-me.js";
import { actorOf } from "../auth.js";
import { errorResponses, ProjectionQuery } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const UserView = Type.Object({
  id: Type.String(),
  username: Type.String(),
  email: Type.String(),
  api_key: Type.Optional(Type.String({ description: "masked; free plan" })),
  daily_compute_time_quota: Type.Optional(Type.Integer({ description: "milliseconds per UTC day; free plan" })),
  daily_compute_time_used: Type.Optional(Type.Integer({ description: "milliseconds used today; free plan" })),
  daily_invocations_quota: Type.Optional(Type.Integer()),
  daily_invocations_used: Type.Optional(Type.Integer()),
  billing_period_start_ts: Type.Optional(Type.Integer({ description: "paid plan" })),
  billing_period_end_ts: Type.Optional(Type.Integer({ description: "paid plan" })),
  billing_period_invocations: Type.Optional(Type.Integer({ description: "paid plan" })),
  storage_used_bytes: Type.Integer({ description: "bytes of stored events and data store records (to within a few seconds)" }),
  storage_quota_bytes: Type.Integer({ description: "SLUICE_ACCOUNT_STORAGE_MB in bytes; past it new events are refused" }),
});

export const userRoutes: RouteModule = async (app, { services }) => {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    "/users/me",
    {
      schema: {
        tags: ["users"],
        summary: "The account that owns the API key",
        querystring: ProjectionQuery,
        response: { 200: Type.Object({ data: UserView }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getMe({ ctx: services.ctx, actor: actorOf(request) }) }),
  );
};
