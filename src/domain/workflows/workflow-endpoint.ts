// Workflows as targets of public endpoints (/w/<key>, receive-endpoint-request.ts): found by
// their endpoint_url's key, run by a queued `workflow.run` or, with $.respond in their steps,
// at once. Their trigger event is {method, path, query, headers, body, url, client_ip}.
import type { WorkflowsTable } from "../../store/schema.js";
import { safeDecode } from "../../lib/safe-decode.js";
import { ACCEPTED_RESPONSE } from "../endpoints/accepted-response.js";
import type { EndpointKind, EndpointRequest } from "../endpoints/endpoint-kind.js";
import { isJsonType, jsonOrText } from "../endpoints/request-body.js";
import { runWorkflow, WORKFLOW_RUN_JOB, type WorkflowDeps, type WorkflowRunJob } from "./run-workflow.js";

const FORM_TYPE = /application\/x-www-form-urlencoded/i;

function workflowEvent(publicUrl: string, request: EndpointRequest) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return {
    method: request.method,
    path: safeDecode(request.rawPath) ?? request.rawPath,
    query: request.query,
    headers,
    body: bodyOf(request.body, headers["content-type"]),
    url: `${publicUrl}${request.url}`,
    client_ip: request.clientIp,
  };
}

/** null when empty; JSON or text as for sources; a form's fields as an object. */
function bodyOf(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return null;
  const text = raw.toString("utf8");
  if (!isJsonType(contentType) && contentType && FORM_TYPE.test(contentType)) return Object.fromEntries(new URLSearchParams(text));
  return jsonOrText(text, contentType);
}

export function workflowEndpoint(deps: WorkflowDeps): EndpointKind<WorkflowsTable> {
  const { ctx } = deps;
  return {
    deps,
    async find(key) {
      const workflow = await ctx.db.selectFrom("workflows").selectAll().where("endpoint_key", "=", key).executeTakeFirst();
      return workflow?.active === 1 ? workflow : undefined;
    },
    ownerOf: (workflow) => workflow.user_id,
    respondsItself: (workflow) => workflow.custom_response === 1,
    // The configured public URL is read per request: with PORT=0 it is set once the server listens.
    eventOf: (request) => workflowEvent(ctx.config.publicUrl, request),
    job(workflow, event) {
      const payload: WorkflowRunJob = { userId: workflow.user_id, workflowId: workflow.id, event, trigger: "http", hops: 0 };
      return { type: WORKFLOW_RUN_JOB, userId: workflow.user_id, payload };
    },
    run: (workflow, event, onResponse) => runWorkflow(deps, { workflow, event, trigger: "http", onResponse }),
    failureMessage: ({ kind, message }) =>
      kind === "error"
        ? `the workflow threw an error: ${message}`
        : kind === "timeout"
          ? "the workflow timed out"
          : kind === "memory"
            ? "the workflow ran out of memory"
            : "the workflow's runner crashed",
    // Steps that never call $.respond although the workflow waits for it: the request was accepted.
    noResponse: ACCEPTED_RESPONSE,
  };
}
