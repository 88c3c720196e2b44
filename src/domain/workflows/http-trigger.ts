// A request to a workflow's endpoint_url. Without $.respond in its steps the request is made
// durable first (a queued run, written before answering) and answered 200 at once; with it, the
// run happens now and the request gets what $.respond gave once the run's events are stored.
import type { HttpResponseRecord } from "../../runtime/contract.js";
import { notFound } from "../../lib/errors.js";
import { runWorkflow, WORKFLOW_RUN_JOB, type WorkflowDeps, type WorkflowRunJob } from "./run-workflow.js";
import { assertWithinQuota } from "../usage/quota.js";
import { assertStorageAvailable } from "../usage/storage-quota.js";
import { inGroupTransaction } from "../../store/group-commit.js";
import { ACCEPTED_RESPONSE } from "../accepted-response.js";

export interface IncomingRequest {
  endpointKey: string;
  method: string;
  /** The path after /w/<key>, "/" at least. */
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer | undefined;
  url: string;
  clientIp: string;
}

export function requestEvent(request: IncomingRequest) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return { method: request.method, path: request.path, query: request.query, headers, body: parseBody(request.rawBody, headers["content-type"]), url: request.url, client_ip: request.clientIp };
}

function parseBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (!raw || raw.length === 0) return null;
  const text = raw.toString("utf8");
  if (contentType && /json/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (contentType && /application\/x-www-form-urlencoded/i.test(contentType)) return Object.fromEntries(new URLSearchParams(text));
  return text;
}

export async function triggerWorkflowByHttp(deps: WorkflowDeps, request: IncomingRequest): Promise<HttpResponseRecord> {
  const { ctx } = deps;
  const workflow = await ctx.db.selectFrom("workflows").selectAll().where("endpoint_key", "=", request.endpointKey).executeTakeFirst();
  if (!workflow || workflow.active !== 1) throw notFound();
  await assertWithinQuota(ctx, workflow.user_id);
  await assertStorageAvailable(ctx, workflow.user_id);
  const event = requestEvent(request);

  if (workflow.custom_response !== 1) {
    const job: WorkflowRunJob = { userId: workflow.user_id, workflowId: workflow.id, event, trigger: "http", hops: 0 };
    // Requests accepted close together share a commit, as for sources (endpoint-request.ts).
    await inGroupTransaction(ctx.db, (tx) => deps.queue.enqueue(tx, [{ type: WORKFLOW_RUN_JOB, userId: workflow.user_id, payload: job }]));
    return ACCEPTED_RESPONSE;
  }

  // The response $.respond gave is sent once the run's events are stored: a 2xx means they are
  // accepted, so they must survive a crash right after it (docs/architecture.md, "Delivery"), as for sources.
  let response: HttpResponseRecord | undefined;
  const result = await runWorkflow(deps, { workflow, event, trigger: "http", onResponse: (given) => (response ??= given) });
  response ??= result.response;
  if (response) return response;
  if (result.error) return failedResponse(result.error.kind, result.error.message);
  return ACCEPTED_RESPONSE;
}

function failedResponse(kind: string, message: string): HttpResponseRecord {
  const reason = kind === "error" ? `the workflow threw an error: ${message}` : kind === "timeout" ? "the workflow timed out" : kind === "memory" ? "the workflow ran out of memory" : "the workflow's runner crashed";
  return { status: 500, headers: {}, body: { kind: "json", value: { error: reason, code: kind.toUpperCase() } } };
}
