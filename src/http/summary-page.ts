// Sends a page of event summaries: JSON text as the domain made it, or objects for the
// projection hook (include/exclude), which asked for them.
import type { FastifyReply } from "fastify";
import type { SummaryPageResult } from "../domain/events/list-event-summaries.js";

export function sendSummaryPage(reply: FastifyReply, result: SummaryPageResult) {
  if ("objects" in result) return reply.send(result.objects);
  return reply.type("application/json; charset=utf-8").send(result.json);
}
