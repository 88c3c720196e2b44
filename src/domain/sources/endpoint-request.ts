// A request to a source's HTTP endpoint. Without customResponse it is accepted durably (a
// queued job, written before the 200) and run by a worker; with customResponse it runs now
// and the request gets what this.http.respond gave, once the run's events are stored.
import { notFound } from "../../lib/errors.js";
import type { ExecutionFailure, HttpResponseRecord } from "../../runtime/contract.js";
import type { JobQueue } from "../../queue/contract.js";
import { inGroupTransaction } from "../../store/group-commit.js";
import { ACCEPTED_RESPONSE } from "../accepted-response.js";
import { assertWithinQuota } from "../usage/quota.js";
import { assertStorageAvailable } from "../usage/storage-quota.js";
import { runSource, type SourceDeps } from "./run-source.js";
import { runnableByEndpoint } from "./runnable-source.js";
import { SOURCE_RUN_JOB } from "./source-jobs.js";

export interface EndpointRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  bodyRaw: string;
  contentType: string | undefined;
}

const NO_RESPONSE: HttpResponseRecord = { status: 200, headers: {}, body: { kind: "none" } };

function eventOf(request: EndpointRequest) {
  let body: unknown = request.bodyRaw;
  if (request.contentType && /json/i.test(request.contentType) && request.bodyRaw !== "") {
    try {
      body = JSON.parse(request.bodyRaw);
    } catch {
      // Not JSON after all: the code gets the raw text.
    }
  }
  return { method: request.method, path: request.path, query: request.query, headers: request.headers, bodyRaw: request.bodyRaw, body };
}

export async function receiveEndpointRequest(deps: SourceDeps & { queue: JobQueue; key: string; request: EndpointRequest }): Promise<HttpResponseRecord> {
  const { ctx } = deps;
  const source = await runnableByEndpoint(ctx, deps.key);
  if (!source || !source.active || !source.endpointKey) throw notFound();
  await assertWithinQuota(ctx, source.userId);
  await assertStorageAvailable(ctx, source.userId);
  const event = eventOf(deps.request);
  if (!source.customResponse) {
    // Requests accepted close together share a commit (group commit); each is answered only
    // once its own job is committed.
    await inGroupTransaction(ctx.db, (tx) => deps.queue.enqueue(tx, [{ type: SOURCE_RUN_JOB, userId: source.userId, payload: { sourceId: source.id, event } }]));
    return ACCEPTED_RESPONSE;
  }
  // The response the code gave is sent once the run's events are stored: a 2xx means they
  // are accepted, so they must survive a crash right after it (docs/architecture.md, "Delivery"). Code that
  // responds and then fails still gets its response sent; its error goes to $errors.
  let response: HttpResponseRecord | undefined;
  const result = await runSource(deps, { sourceId: source.id, source, entry: "run", event, onResponse: (given) => (response ??= given) });
  if (!result) throw notFound();
  response ??= result.response;
  if (response) return response;
  if (result.error) throw executionFailed(result.error);
  return NO_RESPONSE;
}

/** A run that failed or was killed before it responded: a 500 naming the failure. */
export class ExecutionFailedError extends Error {
  constructor(readonly failure: ExecutionFailure) {
    super(`${failure.kind}: ${failure.message}`);
    this.name = "ExecutionFailedError";
  }
}

function executionFailed(failure: ExecutionFailure): Error {
  return new ExecutionFailedError(failure);
}

