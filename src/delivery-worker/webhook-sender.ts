// Sends one webhook request (docs/architecture.md, "Delivery"): POST, JSON body, Standard Webhooks headers,
// 15 s overall timeout, redirects not followed, response read up to a cap, and every
// connection through the egress guard (literal IPs here, resolved names in the connector's
// lookup). The HTTP client is undici (ADR 0010): it keeps connections alive per origin and
// costs the service far less CPU per request than node:http's client.
import { Agent, type Dispatcher } from "undici";
import { BoundedCache } from "../lib/bounded-cache.js";
import {
  EGRESS_REFUSED_ATTEMPT_ERROR,
  guardedLookup,
  normalizeHostLiteral,
  refusedLiteralHost,
  type AddressSet,
} from "../egress/egress-guard.js";
import { systemHostAddresses } from "../egress/host-addresses.js";
import { parseRetryAfter } from "./retry-policy.js";
import { signatureHeader } from "./signature.js";

export const WEBHOOK_TIMEOUT_MS = 15_000;
export const RESPONSE_EXCERPT_BYTES = 4096;
/** How long an idle connection to an endpoint is kept for the next delivery. */
const KEEP_ALIVE_MS = 30_000;

export interface WebhookRequest {
  url: string;
  body: string;
  webhookId: string;
  timestampSeconds: number;
  secrets: string[];
  emitterId: string;
  eventName: string;
  eventId: string;
  /** Stops the request (shutdown); an AbortSignal or anything with the part of it used here. */
  signal?: StopSignal;
}

/**
 * The part of AbortSignal a request uses. The sender thread stops requests with a lighter
 * object of this shape: creating an AbortSignal per request and listening on it was ~7 % of
 * that thread's CPU under load.
 */
export interface StopSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export interface WebhookOutcome {
  /** HTTP status when a response arrived. */
  status?: number;
  durationMs: number;
  responseExcerpt?: string;
  /** Why no acceptable response came: network error, timeout, egress refused. */
  error?: string;
  retryAfterMs?: number;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookOutcome>;
  close(): void;
}

export interface WebhookSenderOptions {
  allowPrivateEgress: boolean;
  timeoutMs?: number;
  /** The host's own addresses, refused like private ones (this thread's reader of the interfaces by default). */
  hostAddresses?: AddressSet;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const hostAddresses = options.hostAddresses ?? systemHostAddresses();
  // No limit of connections per origin: the queue already caps deliveries in flight per
  // webhook, and two webhooks on one host must not wait for each other. Redirects are not
  // followed (undici's default, maxRedirections 0).
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.allowPrivateEgress, hostAddresses) as never, timeout: timeoutMs },
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  const targets = new BoundedCache<string, Target>(1000);
  const parseTarget = (raw: string) => targetOf(raw, options.allowPrivateEgress);

  async function send(request: WebhookRequest): Promise<WebhookOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = targets.get(request.url, parseTarget);
    if ("error" in target) return { durationMs: 0, error: target.error };
    // The host's addresses change, so a literal is checked against them at each send, not cached.
    const refused = target.literal !== undefined && refusedLiteralHost(target.literal, options.allowPrivateEgress, hostAddresses);
    if (refused) return { durationMs: 0, error: EGRESS_REFUSED_ATTEMPT_ERROR };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "Sluice-Webhooks/1",
      "webhook-id": request.webhookId,
      "webhook-timestamp": String(request.timestampSeconds),
      "webhook-signature": signatureHeader(request.secrets, request.webhookId, request.timestampSeconds, request.body),
      "x-sluice-emitter-id": request.emitterId,
      "x-sluice-event-name": request.eventName,
      "x-sluice-event-id": request.eventId,
    };

    return new Promise<WebhookOutcome>((resolve) => {
      const exchange = new WebhookExchange(resolve, elapsed, request.signal);
      exchange.timer = setTimeout(() => exchange.fail(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      agent.dispatch({ origin: target.origin, path: target.path, method: "POST", headers, body: request.body }, exchange);
    });
  }

  return {
    send,
    close() {
      void agent.destroy().catch(() => undefined);
    },
  };
}

type Target = { origin: string; path: string; literal?: string } | { error: string };

/**
 * Where a webhook URL sends to, or why it cannot be sent to. Parsed and checked once per URL
 * rather than per request (parsing was ~2 % of the sender thread's CPU under load; see
 * `targets` in createWebhookSender). Literal IPs are checked here because sockets connect to
 * them without a lookup; names are checked after resolution, at every new connection
 * (egress-guard.ts).
 */
function targetOf(raw: string, allowPrivateEgress: boolean): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: "invalid webhook url" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { error: `unsupported protocol ${url.protocol}` };
  const refused = refusedLiteralHost(url.hostname, allowPrivateEgress);
  if (refused) return { error: EGRESS_REFUSED_ATTEMPT_ERROR };
  return { origin: url.origin, path: url.pathname + url.search, literal: normalizeHostLiteral(url.hostname) };
}

/**
 * undici's dispatch handler for one delivery: keeps the status, Retry-After and the start of
 * the body, and settles once — on completion, error, timeout or shutdown (which abort the
 * request through the function undici hands over on connect).
 */
class WebhookExchange implements Dispatcher.DispatchHandlers {
  timer: NodeJS.Timeout | undefined;
  private abortRequest: ((reason: Error) => void) | undefined;
  private status: number | undefined;
  private retryAfter: string | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private readonly onShutdown = () => this.fail(new Error("delivery interrupted by shutdown"));

  constructor(
    private readonly resolve: (outcome: WebhookOutcome) => void,
    private readonly elapsed: () => number,
    private readonly shutdown: StopSignal | undefined,
  ) {
    if (shutdown?.aborted) queueMicrotask(this.onShutdown);
    else shutdown?.addEventListener("abort", this.onShutdown, { once: true });
  }

  onConnect(abort: (reason: Error) => void): void {
    this.abortRequest = abort;
    if (this.settled) abort(new Error("delivery ended"));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.status = statusCode;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      if (rawHeaders[i]!.length === 11 && rawHeaders[i]!.toString("latin1").toLowerCase() === "retry-after")
        this.retryAfter = rawHeaders[i + 1]!.toString("latin1");
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // We have what we keep; an endpoint may stream without end, so stop reading.
    if (this.size >= RESPONSE_EXCERPT_BYTES) this.complete(true);
    return true;
  }

  onComplete(): void {
    this.complete(false);
  }

  onError(error: Error): void {
    this.fail(error);
  }

  fail(error: Error): void {
    if (this.settled) return;
    // A name that resolves to a refused address fails in the connector's lookup (guardedLookup):
    // the attempt says which setting would allow it, as the literal checks above do.
    const refused = (error as { code?: unknown }).code === "EGRESS_REFUSED";
    this.finish({ durationMs: this.elapsed(), error: refused ? EGRESS_REFUSED_ATTEMPT_ERROR : error.message || String(error) }, true);
  }

  private complete(stopReading: boolean): void {
    if (this.settled) return;
    const excerpt = Buffer.concat(this.chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8");
    this.finish(
      {
        status: this.status,
        durationMs: this.elapsed(),
        responseExcerpt: excerpt,
        retryAfterMs: parseRetryAfter(this.retryAfter, Date.now()),
      },
      stopReading,
    );
  }

  private finish(outcome: WebhookOutcome, stopRequest: boolean): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.shutdown?.removeEventListener("abort", this.onShutdown);
    // A request still running (timeout, shutdown, a body beyond the excerpt) is stopped; its
    // connection is closed rather than reused.
    if (stopRequest) this.abortRequest?.(new Error("delivery ended"));
    this.resolve(outcome);
  }
}
