// Webhook deliveries (beyond the spec): list with attempts, re-send one or all failed in a
// time range, and rotate the signing secret.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { listWebhookDeliveries } from "../../domain/deliveries/list-deliveries.js";
import { resendDelivery, resendFailedDeliveries } from "../../domain/deliveries/resend-deliveries.js";
import { rotateWebhookSecret } from "../../domain/deliveries/rotate-secret.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import { paramsFrom } from "../params-from.js";
import type { RouteModule } from "./route-module.js";
import { Webhook } from "./webhook-schema.js";

const Status = Type.Union([Type.Literal("pending"), Type.Literal("succeeded"), Type.Literal("failed")]);
const Nullable = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const Attempt = Type.Object({
  attempted_at: Type.Integer(),
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  response_excerpt: Nullable(Type.String()),
  error: Nullable(Type.String()),
});

const Delivery = Type.Object({
  id: Type.String(),
  webhook_message_id: Type.String({ description: "the webhook-id header, stable across retries" }),
  emitter_id: Type.String(),
  event_id: Type.String(),
  event_name: Type.String(),
  event: Type.Unknown(),
  status: Status,
  attempt_count: Type.Integer(),
  last_attempt: Type.Union([Attempt, Type.Null()]),
  attempts: Type.Array(Attempt),
  next_attempt_at: Nullable(Type.Integer()),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  delivery_id: Type.String({ minLength: 1, maxLength: 128 }),
});
const RangeFields = {
  status: Type.Optional(Type.Literal("failed")),
  from: Type.Optional(Type.Integer({ minimum: 0 })),
  to: Type.Optional(Type.Integer({ minimum: 0 })),
};

export const deliveryRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["webhooks"];

  app.get(
    "/webhooks/:id/deliveries",
    {
      schema: {
        tags,
        summary: "List a webhook's deliveries, newest first, with their attempts",
        params: IdParams,
        querystring: Type.Composite([ListQuery, Type.Object({ status: Type.Optional(Status) })]),
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(Delivery) }), ...errorResponses },
      },
    },
    async (request) =>
      listWebhookDeliveries({
        ctx,
        actor: actorOf(request),
        webhookId: request.params.id,
        status: request.query.status,
        page: pageRequest(request.query),
      }),
  );

  app.post(
    "/webhooks/:id/deliveries/resend",
    {
      schema: {
        tags,
        summary: "Re-send every failed delivery created between from and to (Unix seconds)",
        params: IdParams,
        querystring: Type.Object(RangeFields),
        body: Type.Object(RangeFields, { additionalProperties: false }),
        response: { 200: Type.Object({ data: Type.Object({ resent: Type.Integer() }) }), ...errorResponses },
      },
    },
    async (request) => {
      const params = paramsFrom<{ from?: number; to?: number }>(request);
      return {
        data: await resendFailedDeliveries({
          ctx,
          actor: actorOf(request),
          webhookId: request.params.id,
          from: params.from,
          to: params.to,
        }),
      };
    },
  );

  app.post(
    "/webhooks/:id/deliveries/:delivery_id/resend",
    {
      schema: {
        tags,
        summary: "Re-send one delivery (not while it is pending)",
        params: DeliveryParams,
        response: { 200: Type.Object({ data: Delivery }), ...errorResponses },
      },
    },
    async (request) => ({
      data: await resendDelivery({ ctx, actor: actorOf(request), webhookId: request.params.id, deliveryId: request.params.delivery_id }),
    }),
  );

  app.post(
    "/webhooks/:id/rotate_secret",
    {
      schema: {
        tags,
        summary: "Rotate the signing secret; the new one is shown only here, the old one keeps signing for 24 h",
        params: IdParams,
        querystring: ProjectionQuery,
        response: {
          200: Type.Object({ data: Type.Composite([Webhook, Type.Object({ previous_secret_expires_at: Type.Integer() })]) }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ data: await rotateWebhookSecret({ ctx, actor: actorOf(request), webhookId: request.params.id }) }),
  );
};
