import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { streamOf } from "../../domain/subscriptions/event-name.js";
import { replayWorkflowError } from "../../domain/workflows/replay-error.js";
import { listWorkflowEventSummaries, openWorkflowTail } from "../../domain/workflows/workflow-events.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams, PageInfo, PaginationQuery, pageRequest, expandsEvent } from "../common-schemas.js";
import { streamEvents } from "../sse.js";
import { wantsProjection } from "../projection.js";
import { sendSummaryPage } from "../summary-page.js";
import type { RouteModule } from "./route-module.js";
import { EventSummary } from "./source-events.js";

const SummaryQuery = Type.Object({
  ...PaginationQuery.properties,
  expand: Type.Optional(Type.String({ maxLength: 64, description: "expand=event returns events over 1 KB in full" })),
});
const SummaryPage = Type.Object({ page_info: PageInfo, data: Type.Array(EventSummary) });

export const workflowEventRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["workflow events"];

  app.get(
    "/workflows/:id/event_summaries",
    {
      schema: {
        tags,
        summary: "Last 100 events the workflow emitted with $send.emit (?event_name=$logs or $errors for the other streams)",
        params: IdParams,
        querystring: Type.Object({ ...SummaryQuery.properties, event_name: Type.Optional(Type.String({ maxLength: 128 })) }),
        response: { 200: SummaryPage, ...errorResponses },
      },
    },
    async (request, reply) => {
      const page = await listWorkflowEventSummaries({
        ctx,
        actor: actorOf(request),
        id: request.params.id,
        stream: streamOf(request.query.event_name),
        page: pageRequest(request.query),
        expand: expandsEvent(request.query.expand),
        asObjects: wantsProjection(request),
      });
      return sendSummaryPage(reply, page);
    },
  );

  app.get(
    "/workflows/:id/$errors/event_summaries",
    {
      schema: {
        tags,
        summary: "Last 100 errors of the workflow: original_event, original_context and error",
        params: IdParams,
        querystring: SummaryQuery,
        response: { 200: SummaryPage, ...errorResponses },
      },
    },
    async (request, reply) => {
      const page = await listWorkflowEventSummaries({
        ctx,
        actor: actorOf(request),
        id: request.params.id,
        stream: "$errors",
        page: pageRequest(request.query),
        expand: expandsEvent(request.query.expand),
        asObjects: wantsProjection(request),
      });
      return sendSummaryPage(reply, page);
    },
  );

  app.get(
    "/workflows/:id/sse",
    {
      schema: {
        tags,
        summary: "Live tail: new event summaries as Server-Sent Events (?event_name=$errors or $logs; Last-Event-ID resumes)",
        params: IdParams,
        querystring: Type.Object({ event_name: Type.Optional(Type.String({ maxLength: 128 })) }),
      },
    },
    async (request, reply) => {
      const header = request.headers["last-event-id"];
      const tail = await openWorkflowTail({
        ctx,
        actor: actorOf(request),
        id: request.params.id,
        eventName: request.query.event_name,
        lastEventId: typeof header === "string" ? header : undefined,
      });
      streamEvents(request, reply, tail, { keepaliveMs: ctx.config.sseKeepaliveSeconds * 1000 });
    },
  );

  app.post(
    "/workflows/:id/$errors/:event_id/replay",
    {
      schema: {
        tags,
        summary: "Run the workflow again on the original_event of one of its $errors events (queued; answers 202)",
        params: Type.Object({ ...IdParams.properties, event_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          202: Type.Object({
            data: Type.Object({ workflow_id: Type.String(), error_event_id: Type.String(), original_event: Type.Unknown() }),
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const data = await replayWorkflowError({
        ctx,
        queue: services.queue,
        actor: actorOf(request),
        id: request.params.id,
        eventId: request.params.event_id,
      });
      return reply.status(202).send({ data });
    },
  );
};
