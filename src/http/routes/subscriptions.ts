import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createAutoSubscription } from "../../domain/subscriptions/auto-subscriptions.js";
import { createSubscription } from "../../domain/subscriptions/create-subscription.js";
import { deleteSubscription } from "../../domain/subscriptions/delete-subscription.js";
import { listSubscriptions } from "../../domain/subscriptions/list-subscriptions.js";
import { invalid } from "../../lib/errors.js";
import { actorOf } from "../auth.js";
import { errorResponses, ProjectionQuery } from "../common-schemas.js";
import { paramsFrom } from "../params-from.js";
import type { RouteModule } from "./route-module.js";

const IdField = Type.String({ minLength: 1, maxLength: 128 });
const EventName = Type.String({ maxLength: 128 });
const Fields = { emitter_id: IdField, listener_id: IdField, event_name: EventName, ...ProjectionQuery.properties };
const Query = Type.Partial(Type.Object(Fields));
const Body = Type.Partial(Type.Object(Fields, { additionalProperties: false }));
const Subscription = Type.Object({ id: Type.String(), emitter_id: Type.String(), listener_id: Type.String(), event_name: Type.String() });

type Params = { emitter_id?: string; listener_id?: string; event_name?: string };

function required<K extends keyof Params>(params: Params, ...names: K[]): Required<Pick<Params, K>> {
  for (const name of names) if (params[name] === undefined) throw invalid(`${name} is required`);
  return params as Required<Pick<Params, K>>;
}

export const subscriptionRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["subscriptions"];

  app.post(
    "/subscriptions",
    {
      schema: {
        tags,
        summary: "Subscribe a listener to an emitter's stream (query string)",
        querystring: Query,
        body: Body,
        response: { 200: Type.Object({ data: Subscription }), ...errorResponses },
      },
    },
    async (request) => {
      const params = required(paramsFrom<Params>(request), "emitter_id", "listener_id");
      return { data: await createSubscription({ ctx, actor: actorOf(request), input: params }) };
    },
  );

  app.delete(
    "/subscriptions",
    {
      schema: {
        tags,
        summary: "Remove a subscription; pass event_name= (empty) when none was given",
        querystring: Query,
        body: Body,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const params = required(paramsFrom<Params>(request), "emitter_id", "listener_id", "event_name");
      await deleteSubscription({ ctx, actor: actorOf(request), input: params });
      return reply.status(204).send(null);
    },
  );

  app.get(
    "/users/me/subscriptions",
    {
      schema: {
        tags,
        summary: "Every subscription of the account",
        querystring: ProjectionQuery,
        response: { 200: Type.Object({ data: Type.Array(Subscription) }), ...errorResponses },
      },
    },
    async (request) => ({ data: await listSubscriptions({ ctx, actor: actorOf(request) }) }),
  );

  app.post(
    "/auto_subscriptions",
    {
      schema: {
        tags,
        summary: "Subscribe a listener to a stream of every workflow and source created later",
        querystring: Query,
        body: Body,
        response: {
          200: Type.Object({ data: Type.Object({ id: Type.String(), listener_id: Type.String(), event_name: Type.String() }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const params = required(paramsFrom<Params>(request), "listener_id", "event_name");
      return { data: await createAutoSubscription({ ctx, actor: actorOf(request), input: params }) };
    },
  );
};
