import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { componentView } from "../../domain/components/component.js";
import { findComponent, findPublishedComponent } from "../../domain/components/find-component.js";
import { listOwnComponents } from "../../domain/components/list-own-components.js";
import { listPublishedComponents } from "../../domain/components/list-published-components.js";
import { saveComponent } from "../../domain/components/save-component.js";
import { actorOf } from "../auth.js";
import { ComponentFiles, errorResponses, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import { paramsFrom } from "../params-from.js";
import type { RouteModule } from "./route-module.js";

const CodeFields = {
  component_code: Type.Optional(Type.String({ maxLength: 2 * 1024 * 1024, description: "Full component code" })),
  component_url: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2048, description: "Where the code lives (http or https; GitHub blob URLs are fetched raw)" }),
  ),
};

const ConfigurableProp = Type.Object({ name: Type.String(), type: Type.String() }, { additionalProperties: true });

const Component = Type.Object({
  id: Type.String(),
  key: Type.Union([Type.String(), Type.Null()]),
  code: Type.String(),
  code_hash: Type.String(),
  name: Type.String(),
  version: Type.String(),
  configurable_props: Type.Array(ConfigurableProp),
  additional_props: Type.Boolean({ description: "whether additionalProps() adds props: POST /components/{id}/props/reload lists them" }),
  component_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

const PublishedComponent = Type.Object({
  id: Type.String(),
  key: Type.String(),
  name: Type.String(),
  version: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  type: Type.String({ description: '"source" or "action"' }),
  configurable_props: Type.Array(ConfigurableProp),
  package: Type.Union([Type.Object({ name: Type.String(), version: Type.String(), path: Type.String() }), Type.Null()], {
    description: "the registry package it came from (null for components shipped as files)",
  }),
  created_at: Type.Integer(),
});

const OwnComponent = Type.Object({
  id: Type.String(),
  key: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  version: Type.String(),
  type: Type.String({ description: '"source" or "action"' }),
  description: Type.Union([Type.String(), Type.Null()]),
  component_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Integer(),
});

const KeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 256 }) });
const Response = { 200: Type.Object({ data: Component }), ...errorResponses };

export const componentRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, runner } = services;
  const tags = ["components"];

  app.post(
    "/components",
    {
      schema: {
        tags,
        summary: "Save component code (component_code wins over component_url, which is then kept as metadata)",
        body: Type.Object({ ...CodeFields, component_files: Type.Optional(ComponentFiles), ...ProjectionQuery.properties }),
        querystring: Type.Object({ ...CodeFields, ...ProjectionQuery.properties }),
        response: Response,
      },
    },
    async (request) => {
      const params = paramsFrom<{ component_code?: string; component_url?: string; component_files?: Record<string, string> }>(request);
      const component = await saveComponent({
        ctx,
        runner,
        actor: actorOf(request),
        input: { code: params.component_code, url: params.component_url, files: params.component_files },
      });
      return { data: componentView(component) };
    },
  );

  app.get(
    "/users/me/components",
    {
      schema: {
        tags,
        summary: "List the components the account saved, newest first (without their code)",
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(OwnComponent) }), ...errorResponses },
      },
    },
    async (request) => listOwnComponents({ ctx, actor: actorOf(request), page: pageRequest(request.query) }),
  );

  app.get(
    "/components/registry",
    {
      schema: {
        tags,
        summary: "List the published registry components (sources and actions, or one type), newest first, with their props",
        querystring: Type.Object({
          ...ListQuery.properties,
          type: Type.Optional(Type.Union([Type.Literal("source"), Type.Literal("action")])),
        }),
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(PublishedComponent) }), ...errorResponses },
      },
    },
    async (request) => listPublishedComponents({ ctx, page: pageRequest(request.query), type: request.query.type }),
  );

  app.get(
    "/components/registry/:key",
    {
      schema: {
        tags,
        summary: "Read a published registry component by key",
        params: KeyParams,
        querystring: ProjectionQuery,
        response: Response,
      },
    },
    async (request) => ({ data: componentView(await findPublishedComponent({ ctx, key: request.params.key })) }),
  );

  app.get(
    "/components/:key",
    {
      schema: {
        tags,
        summary: "Read a component of the account by key (the latest saved) or sc_ id",
        params: KeyParams,
        querystring: ProjectionQuery,
        response: Response,
      },
    },
    async (request) => ({ data: componentView(await findComponent({ ctx, actor: actorOf(request), idOrKey: request.params.key })) }),
  );
};
