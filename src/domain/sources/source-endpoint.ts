// Sources as targets of public endpoints (/e/<key>, receive-endpoint-request.ts): found through
// the runnable-source cache (the hot ingest path), run by a `source.run` job or, with
// customResponse, at once. Their code receives {method, path, query, headers, bodyRaw, body}.
import type { JobQueue } from "../../queue/job-queue.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import type { EndpointKind, EndpointRequest } from "../endpoints/endpoint-kind.js";
import { jsonOrText } from "../endpoints/request-body.js";
import { runSource, type SourceDeps } from "./run-source.js";
import { runnableByEndpoint, type RunnableSource } from "./runnable-source.js";
import { sourceRunJob } from "./source-jobs.js";

const NO_RESPONSE: HttpResponseRecord = { status: 200, headers: {}, body: { kind: "none" } };

function sourceEvent(request: EndpointRequest) {
  const bodyRaw = request.body.toString("utf8");
  return {
    method: request.method,
    path: request.rawPath,
    query: request.query,
    headers: request.headers,
    bodyRaw,
    body: jsonOrText(bodyRaw, request.headers["content-type"]),
  };
}

export function sourceEndpoint(deps: SourceDeps & { queue: JobQueue }): EndpointKind<RunnableSource> {
  const { ctx } = deps;
  return {
    deps,
    async find(key) {
      const source = await runnableByEndpoint(ctx, key);
      return source && source.active && source.endpointKey ? source : undefined;
    },
    ownerOf: (source) => source.userId,
    respondsItself: (source) => source.customResponse,
    eventOf: sourceEvent,
    job: (source, event) => sourceRunJob(source.userId, source.id, event),
    run: (source, event, onResponse) => runSource(deps, { sourceId: source.id, source, entry: "run", event, onResponse }),
    failureMessage: ({ kind, message }) => `the source failed before responding (${kind}): ${message}`,
    noResponse: NO_RESPONSE,
  };
}
