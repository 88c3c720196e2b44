// Sources (spec: Sources): list, create, read, update, delete.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { listSources } from "../../domain/sources/list-sources.js";
import { createSource, deleteSource, updateSource, type SaveSourceInput } from "../../domain/sources/save-source.js";
import { getSource } from "../../domain/sources/get-source.js";
import { actorOf } from "../auth.js";
import { ComponentFiles, errorResponses, IdParams, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const SaveFields = {
  component_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  component_code: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
  component_url: Type.Optional(Type.String({ maxLength: 2048 })),
  component_files: Type.Optional(ComponentFiles),
  name: Type.Optional(Type.String({ maxLength: 256 })),
  configured_props: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
};
const CreateBody = Type.Object({ ...SaveFields, ...ProjectionQuery.properties }, { additionalProperties: false });
const UpdateBody = Type.Object(
  { ...SaveFields, active: Type.Optional(Type.Boolean()), ...ProjectionQuery.properties },
  { additionalProperties: false },
);

const Source = Type.Object({
  id: Type.String(),
  user_id: Type.Optional(Type.String({ description: "in create, read and update responses; absent from list items" })),
  component_id: Type.String(),
  configured_props: Type.Record(Type.String(), Type.Unknown(), {
    description: "timer props as {cron, interval_seconds}, HTTP props as {endpoint_url}",
  }),
  active: Type.Boolean(),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
  name: Type.String(),
  name_slug: Type.String(),
});

function saveInput(body: Record<string, unknown>): SaveSourceInput {
  const { include: _include, exclude: _exclude, ...input } = body;
  return input as SaveSourceInput;
}

export const sourceRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const deps = { ctx: services.ctx, runner: services.runner };
  const tags = ["sources"];

  app.get(
    "/users/me/sources",
    {
      schema: {
        tags,
        summary: "List the account's sources",
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(Source) }), ...errorResponses },
      },
    },
    async (request) => listSources({ ctx: services.ctx, actor: actorOf(request), page: pageRequest(request.query) }),
  );

  app.post(
    "/sources",
    {
      schema: {
        tags,
        summary: "Deploy a component as a source (runs deploy, then activate)",
        body: CreateBody,
        response: { 200: Type.Object({ data: Source }), ...errorResponses },
      },
    },
    async (request) => ({ data: await createSource({ ...deps, actor: actorOf(request), input: saveInput(request.body) }) }),
  );

  app.get(
    "/sources/:id",
    {
      schema: {
        tags,
        summary: "Read a source",
        params: IdParams,
        querystring: ProjectionQuery,
        response: { 200: Type.Object({ data: Source }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getSource({ ctx: services.ctx, actor: actorOf(request), id: request.params.id }) }),
  );

  app.put(
    "/sources/:id",
    {
      schema: {
        tags,
        summary: "Swap a source's code and props, or disable/enable it (runs deactivate, then activate)",
        params: IdParams,
        body: UpdateBody,
        response: { 200: Type.Object({ data: Source }), ...errorResponses },
      },
    },
    async (request) => ({
      data: await updateSource({ ...deps, actor: actorOf(request), id: request.params.id, input: saveInput(request.body) }),
    }),
  );

  app.delete(
    "/sources/:id",
    {
      schema: {
        tags,
        summary: "Delete a source (runs deactivate; its endpoint, timers, events and subscriptions go)",
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      await deleteSource({ ...deps, actor: actorOf(request), id: request.params.id });
      return reply.status(204).send(null);
    },
  );
};
