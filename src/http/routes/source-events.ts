// Events of a source: summaries, deletion (queued, 202) and the live tail (SSE).
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { listSourceEventSummaries, openSourceTail, requestSourceEventDeletion } from "../../domain/sources/source-events.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams, ListQuery, PageInfo, pageRequest, expandsEvent } from "../common-schemas.js";
import { streamEvents } from "../sse.js";
import { wantsProjection } from "../projection.js";
import { sendSummaryPage } from "../summary-page.js";
import type { RouteModule } from "./route-module.js";

const EventName = Type.Optional(
  Type.String({ maxLength: 256, description: "a stream other than the default: $logs, $errors or a named stream" }),
);
const EventId = Type.Optional(Type.String({ maxLength: 64, description: "an event id from the summaries" }));

export const EventSummary = Type.Object({
  id: Type.String(),
  indexed_at_ms: Type.Integer(),
  event: Type.Unknown({
    description:
      'without expand=event, events over 1 KB of JSON become {"$truncated": true, "preview": "<first 1024 characters>"} and metadata.truncated is true',
  }),
  metadata: Type.Record(Type.String(), Type.Unknown()),
});

export const sourceEventRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["source events"];

  app.get(
    "/sources/:id/event_summaries",
    {
      schema: {
        tags,
        summary: "The source's recent events, newest first",
        params: IdParams,
        querystring: Type.Composite([
          ListQuery,
          Type.Object({ expand: Type.Optional(Type.String({ maxLength: 64 })), event_name: EventName }),
        ]),
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(EventSummary) }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { expand, event_name } = request.query;
      const page = await listSourceEventSummaries({
        ctx,
        actor: actorOf(request),
        id: request.params.id,
        eventName: event_name,
        page: pageRequest(request.query),
        expand: expandsEvent(expand),
        asObjects: wantsProjection(request),
      });
      return sendSummaryPage(reply, page);
    },
  );

  app.delete(
    "/sources/:id/events",
    {
      schema: {
        tags,
        summary: "Delete the source's events from start_id to end_id (inclusive); done asynchronously",
        params: IdParams,
        querystring: Type.Object({ start_id: EventId, end_id: EventId }),
        response: { 202: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      await requestSourceEventDeletion({
        ctx,
        queue: services.queue,
        actor: actorOf(request),
        id: request.params.id,
        range: { startId: request.query.start_id, endId: request.query.end_id },
      });
      return reply.status(202).send(null);
    },
  );

  app.get(
    "/sources/:id/sse",
    {
      schema: {
        tags,
        summary: "Live tail: new event summaries as Server-Sent Events (Last-Event-ID resumes)",
        params: IdParams,
        querystring: Type.Object({ event_name: EventName }),
      },
    },
    async (request, reply) => {
      const header = request.headers["last-event-id"];
      const tail = await openSourceTail({
        ctx,
        actor: actorOf(request),
        id: request.params.id,
        eventName: request.query.event_name,
        lastEventId: typeof header === "string" ? header : undefined,
      });
      streamEvents(request, reply, tail, { keepaliveMs: ctx.config.sseKeepaliveSeconds * 1000 });
    },
  );
};
