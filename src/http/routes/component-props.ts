// Configuring a component from a props form: POST /components/{id}/props/{prop}/options and
// /components/{id}/props/reload, and the same for a published registry key.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { findComponent, findPublishedComponent } from "../../domain/components/find-component.js";
import { componentPropOptions, reloadComponentProps } from "../../domain/components/configure-component.js";
import { actorOf } from "../auth.js";
import { errorResponses } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const Key = Type.String({ minLength: 1, maxLength: 256 });
const Prop = Type.String({ minLength: 1, maxLength: 256 });
const ConfiguredProps = Type.Optional(
  Type.Record(Type.String(), Type.Unknown(), { description: "The values configured so far, as a source's configured_props" }),
);
const OptionsBody = Type.Object({
  configured_props: ConfiguredProps,
  prevContext: Type.Optional(Type.Unknown({ description: "The context of the previous page, as options() returned it" })),
  query: Type.Optional(Type.String({ maxLength: 4096, description: "Text typed so far (props with useQuery)" })),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});
const ReloadBody = Type.Object({ configured_props: ConfiguredProps });
const OptionsResponse = {
  200: Type.Object({ options: Type.Array(Type.Unknown()), context: Type.Unknown() }),
  ...errorResponses,
};
const ReloadResponse = {
  200: Type.Object({
    configurable_props: Type.Array(Type.Object({ name: Type.String(), type: Type.String() }, { additionalProperties: true })),
  }),
  ...errorResponses,
};

export const componentPropsRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, runner } = services;
  const tags = ["components"];
  const own = (request: { params: { id: string } } & Parameters<typeof actorOf>[0]) =>
    findComponent({ ctx, actor: actorOf(request), idOrKey: request.params.id });
  const published = (request: { params: { key: string } }) => findPublishedComponent({ ctx, key: request.params.key });

  app.post(
    "/components/:id/props/:prop/options",
    {
      schema: {
        tags,
        summary: "One page of a prop's options (its async options() run in a runner; static lists as they are)",
        params: Type.Object({ id: Key, prop: Prop }),
        body: OptionsBody,
        response: OptionsResponse,
      },
    },
    async (request) =>
      componentPropOptions({
        ctx,
        runner,
        actor: actorOf(request),
        component: await own(request),
        prop: request.params.prop,
        input: request.body,
      }),
  );

  app.post(
    "/components/registry/:key/props/:prop/options",
    {
      schema: {
        tags,
        summary: "One page of a published component's prop options",
        params: Type.Object({ key: Key, prop: Prop }),
        body: OptionsBody,
        response: OptionsResponse,
      },
    },
    async (request) =>
      componentPropOptions({
        ctx,
        runner,
        actor: actorOf(request),
        component: await published(request),
        prop: request.params.prop,
        input: request.body,
      }),
  );

  app.post(
    "/components/:id/props/reload",
    {
      schema: {
        tags,
        summary: "The component's props with those its additionalProps() adds for the values configured so far",
        params: Type.Object({ id: Key }),
        body: ReloadBody,
        response: ReloadResponse,
      },
    },
    async (request) => ({
      configurable_props: await reloadComponentProps({
        ctx,
        runner,
        actor: actorOf(request),
        component: await own(request),
        input: request.body,
      }),
    }),
  );

  app.post(
    "/components/registry/:key/props/reload",
    {
      schema: {
        tags,
        summary: "A published component's props with those its additionalProps() adds for the values configured so far",
        params: Type.Object({ key: Key }),
        body: ReloadBody,
        response: ReloadResponse,
      },
    },
    async (request) => ({
      configurable_props: await reloadComponentProps({
        ctx,
        runner,
        actor: actorOf(request),
        component: await published(request),
        input: request.body,
      }),
    }),
  );
};
