import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createWebhook } from "../../domain/webhooks/create-webhook.js";
import { listWebhooks } from "../../domain/webhooks/list-webhooks.js";
import { deleteWebhook, getWebhook, updateWebhook } from "../../domain/webhooks/manage-webhook.js";
import { invalid } from "../../lib/errors.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import { paramsFrom } from "../params-from.js";
import { Webhook } from "./webhook-schema.js";
import type { RouteModule } from "./route-module.js";

const Text = (max: number) => Type.String({ maxLength: max });
const CreateFields = {
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  name: Type.Optional(Text(256)),
  description: Type.Optional(Text(4096)),
};
const CreateParams = Type.Object({ ...CreateFields, ...ProjectionQuery.properties });
const CreateBody = Type.Object(
  { ...Type.Partial(Type.Object(CreateFields)).properties, ...ProjectionQuery.properties },
  { additionalProperties: false },
);

const UpdateFields = {
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  name: Type.Optional(Type.Union([Text(256), Type.Null()])),
  description: Type.Optional(Type.Union([Text(4096), Type.Null()])),
  active: Type.Optional(Type.Boolean()),
};

export const webhookRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["webhooks"];

  app.post(
    "/webhooks",
    {
      schema: {
        tags,
        summary: "Create a webhook (parameters in the query string)",
        querystring: Type.Partial(CreateParams),
        body: CreateBody,
        response: { 200: Type.Object({ data: Webhook }), ...errorResponses },
      },
    },
    async (request) => {
      const params = paramsFrom<{ url?: string; name?: string; description?: string }>(request);
      if (!params.url) throw invalid("url is required");
      return {
        data: await createWebhook({
          ctx,
          actor: actorOf(request),
          input: { url: params.url, name: params.name, description: params.description },
        }),
      };
    },
  );

  app.get(
    "/users/me/webhooks",
    {
      schema: {
        tags,
        summary: "List the account's webhooks",
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(Webhook) }), ...errorResponses },
      },
    },
    async (request) => listWebhooks({ ctx, actor: actorOf(request), page: pageRequest(request.query) }),
  );

  app.get(
    "/webhooks/:id",
    {
      schema: {
        tags,
        summary: "Read a webhook",
        params: IdParams,
        querystring: ProjectionQuery,
        response: { 200: Type.Object({ data: Webhook }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getWebhook({ ctx, actor: actorOf(request), id: request.params.id }) }),
  );

  app.put(
    "/webhooks/:id",
    {
      schema: {
        tags,
        summary: "Change a webhook's url, name, description or active flag",
        params: IdParams,
        querystring: Type.Object({
          ...UpdateFields,
          ...ProjectionQuery.properties,
          name: Type.Optional(Text(256)),
          description: Type.Optional(Text(4096)),
        }),
        body: Type.Object({ ...UpdateFields, ...ProjectionQuery.properties }, { additionalProperties: false }),
        response: { 200: Type.Object({ data: Webhook }), ...errorResponses },
      },
    },
    async (request) => ({ data: await updateWebhook({ ctx, actor: actorOf(request), id: request.params.id, input: paramsFrom(request) }) }),
  );

  app.delete(
    "/webhooks/:id",
    {
      schema: {
        tags,
        summary: "Delete a webhook and the subscriptions that deliver to it",
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      await deleteWebhook({ ctx, actor: actorOf(request), id: request.params.id });
      return reply.status(204).send(null);
    },
  );
};
