// A request to a paused run's resume or cancel URL (SLUICE_PUBLIC_URL/r/<token>, any method,
// no API key). The token is found by its hash; an unknown, used or expired one, or one whose run
// has moved on, is a 404. Cancel ends the run at once. Resume stores the request's data on the
// paused step (`steps.<name>.$resume_data`: the JSON body, or its text; for a rerun the whole
// request is `$.context.run.callback_request`) and queues the wake-up that takes the run on.
import type { Ctx } from "../../context.js";
import type { JobQueue } from "../../../queue/job-queue.js";
import { notFound } from "../../../lib/errors.js";
import type { HttpResponseRecord } from "../../../runtime/code-runner.js";
import type { EndpointRequest } from "../../endpoints/endpoint-kind.js";
import { cancelPausedRun } from "./pause-run.js";
import { hashRunToken } from "./run-links.js";
import { resumePausedRun } from "./resume-run.js";

const answer = (status: string): HttpResponseRecord => ({ status: 200, headers: {}, body: { kind: "json", value: { status } } });

export async function receiveRunLink(deps: { ctx: Ctx; queue: JobQueue }, request: EndpointRequest): Promise<HttpResponseRecord> {
  const { ctx } = deps;
  const now = ctx.clock.now();
  const link = await ctx.db.selectFrom("workflow_run_links").selectAll().where("hash", "=", hashRunToken(request.key)).executeTakeFirst();
  if (!link || link.expires_at <= now) throw notFound();
  const run = await ctx.db.selectFrom("workflow_runs").selectAll().where("id", "=", link.run_id).executeTakeFirst();
  if (!run || run.status !== "paused" || run.wake_seq !== link.wake_seq) throw notFound();
  if (link.action === "cancel") {
    const cancelled = await ctx.db.transaction().execute((db) => cancelPausedRun(db, run, link.wake_seq, now));
    if (!cancelled) throw notFound();
    return answer("cancelled");
  }
  const data = requestData(request);
  if (!(await resumePausedRun(deps, run, link.wake_seq, { data, callbackRequest: callbackRequest(request, data) }))) throw notFound();
  return answer("resumed");
}

/** The body as JSON when it is JSON, else its text; null when empty. */
function requestData(request: EndpointRequest): unknown {
  if (request.body.length === 0) return null;
  const text = request.body.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function callbackRequest(request: EndpointRequest, body: unknown) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return { method: request.method, query: request.query, headers, body };
}
