// The account's API keys: make one (shown in full only in that answer), list them masked,
// revoke one.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createApiKey, listApiKeys, revokeApiKey } from "../../domain/users/manage-api-keys.js";
import { actorOf } from "../auth.js";
import { ErrorBody, errorResponses, IdParams, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  api_key: Type.String({ description: "in full only in the answer that created the key; masked elsewhere" }),
  created_at: Type.Integer(),
  expires_at: Type.Union([Type.Integer(), Type.Null()], { description: "unix seconds; null: never" }),
  last_used_at: Type.Union([Type.Integer(), Type.Null()], { description: "unix seconds, to within a minute" }),
});

const CreateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 256 })),
    expires_at: Type.Optional(Type.Integer({ minimum: 0, description: "unix seconds" })),
  },
  { additionalProperties: false },
);

export const apiKeyRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["users"];

  app.post(
    "/users/me/api_keys",
    {
      schema: {
        tags,
        summary: "Create an API key for the account",
        querystring: ProjectionQuery,
        body: CreateBody,
        response: { 200: Type.Object({ data: ApiKey }), ...errorResponses },
      },
    },
    async (request) => ({ data: await createApiKey({ ctx, actor: actorOf(request), input: request.body }) }),
  );

  app.get(
    "/users/me/api_keys",
    {
      schema: {
        tags,
        summary: "List the account's API keys (masked)",
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(ApiKey) }), ...errorResponses },
      },
    },
    async (request) => listApiKeys({ ctx, actor: actorOf(request), page: pageRequest(request.query) }),
  );

  app.delete(
    "/users/me/api_keys/:id",
    {
      schema: {
        tags,
        summary: "Revoke an API key (not the account's last one)",
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await revokeApiKey({ ctx, actor: actorOf(request), input: { id: request.params.id } });
      return reply.status(204).send(null);
    },
  );
};
