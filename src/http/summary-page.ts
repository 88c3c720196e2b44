// Sends a page of event summaries. It is spliced from the stored JSON (event-summary.ts) unless
// the request asks for include/exclude, which the projection hook applies to objects.
import type { FastifyReply, FastifyRequest } from "fastify";
import { summaryPageJson, summaryPageObject, type EventSummaryPage } from "../domain/events/event-summary.js";
import { wantsProjection } from "./projection.js";

export function sendSummaryPage(request: FastifyRequest, reply: FastifyReply, page: EventSummaryPage) {
  if (wantsProjection(request)) return reply.send(summaryPageObject(page));
  return reply.type("application/json; charset=utf-8").send(summaryPageJson(page));
}
