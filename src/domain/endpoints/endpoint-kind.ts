// What the public endpoints of sources (/e/<key>) and workflows (/w/<key>) share, and what
// each kind of target supplies to the one pipeline that serves both (receive-endpoint-request.ts).
import type { IncomingHttpHeaders } from "node:http";
import type { Ctx } from "../context.js";
import type { JobQueue, NewJob } from "../../queue/job-queue.js";
import type { ExecutionFailure, HttpResponseRecord } from "../../runtime/code-runner.js";

/** One request to a public endpoint, as read from the wire (body limit already applied). */
export interface EndpointRequest {
  method: string;
  /** The path segment after the prefix, decoded: the target's endpoint key. */
  key: string;
  /** What follows the key in the path, as sent: "/" at least. */
  rawPath: string;
  /** The path and query string as sent. */
  url: string;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  body: Buffer;
  clientIp: string;
}

/** What running a target's code now gave: the response it sent, or how it failed. */
export interface EndpointRun {
  response?: HttpResponseRecord;
  error?: ExecutionFailure;
}

/**
 * A kind of target of public endpoints (sources, workflows). Built once; the accessors read
 * the target the kind's own `find` returned, so a request allocates nothing to describe it.
 */
export interface EndpointKind<Target> {
  deps: { ctx: Ctx; queue: JobQueue };
  /** The active target whose endpoint key is `key`; undefined for an unknown or inactive one. */
  find(key: string): Promise<Target | undefined>;
  ownerOf(target: Target): string;
  /** Whether the target's code answers the request (custom response) instead of a queued run. */
  respondsItself(target: Target): boolean;
  /** The event the target's code receives, in the shape documented for the kind. */
  eventOf(request: EndpointRequest): unknown;
  /** The job that runs the target on `event` later. */
  job(target: Target, event: unknown): NewJob;
  /** Runs the target on `event` now; undefined when it no longer exists. */
  run(target: Target, event: unknown, onResponse: (response: HttpResponseRecord) => void): Promise<EndpointRun | undefined>;
  /** The `error` text of the 500 for a run that failed before it responded. */
  failureMessage(failure: ExecutionFailure): string;
  /** The answer when the code ran to the end without responding. */
  noResponse: HttpResponseRecord;
}
