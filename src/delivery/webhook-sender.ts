// Sends one webhook request (DESIGN.md §5): POST, JSON body, Standard Webhooks headers,
// 15 s overall timeout, redirects not followed, response read up to a cap, and every
// connection through the egress guard (literal IPs here, resolved names in the agent lookup).
import http from "node:http";
import https from "node:https";
import { guardedLookup, refusedLiteralHost } from "./egress-guard.js";
import { parseRetryAfter } from "./retry-policy.js";
import { signatureHeader } from "./signature.js";

export const WEBHOOK_TIMEOUT_MS = 15_000;
export const RESPONSE_EXCERPT_BYTES = 4096;

export interface WebhookRequest {
  url: string;
  body: string;
  webhookId: string;
  timestampSeconds: number;
  secrets: string[];
  emitterId: string;
  eventName: string;
  eventId: string;
  signal?: AbortSignal;
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

export function createWebhookSender(options: { allowPrivateEgress: boolean; timeoutMs?: number }): WebhookSender {
  const lookup = guardedLookup(options.allowPrivateEgress) as never;
  const agentOptions = { keepAlive: true, lookup, maxFreeSockets: 64 };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;

  async function send(request: WebhookRequest): Promise<WebhookOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { durationMs: 0, error: "invalid webhook url" };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return { durationMs: 0, error: `unsupported protocol ${url.protocol}` };
    // Node connects to literal IPs without a lookup, so the guard checks them here.
    const refused = refusedLiteralHost(url.hostname, options.allowPrivateEgress);
    if (refused) return { durationMs: 0, error: refused.message };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(request.body)),
      "user-agent": "Sluice-Webhooks/1",
      "webhook-id": request.webhookId,
      "webhook-timestamp": String(request.timestampSeconds),
      "webhook-signature": signatureHeader(request.secrets, request.webhookId, request.timestampSeconds, request.body),
      "x-sluice-emitter-id": request.emitterId,
      "x-sluice-event-name": request.eventName,
      "x-sluice-event-id": request.eventId,
    };
    const transport = url.protocol === "https:" ? https : http;
    const agent = url.protocol === "https:" ? agents.https : agents.http;

    return new Promise<WebhookOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: WebhookOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const req = transport.request(url, { method: "POST", headers, agent }, (res) => {
        const status = res.statusCode ?? 0;
        const retryAfterMs = parseRetryAfter(res.headers["retry-after"] as string | undefined, Date.now());
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8");
          finish({ status, durationMs: elapsed(), responseExcerpt: excerpt, retryAfterMs });
        };
        res.on("data", (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size > RESPONSE_EXCERPT_BYTES) {
            done();
            res.destroy(); // we have what we keep; do not read an unbounded body
          }
        });
        res.on("end", done);
        res.on("error", done);
        res.on("close", done);
      });
      const timer = setTimeout(() => req.destroy(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      const onAbort = () => req.destroy(new Error("delivery interrupted by shutdown"));
      request.signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (error) => finish({ durationMs: elapsed(), error: error.message || String(error) }));
      req.end(request.body);
    });
  }

  return {
    send,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
