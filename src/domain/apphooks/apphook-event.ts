// What a request to an account's inbound URL (/a/<key>) carries for its apphook sources: the
// body (parsed when it is JSON, as providers post their payloads), the event's names, and
// Slack's URL verification challenge.
import type { EndpointRequest } from "../endpoints/endpoint-kind.js";
import { bodyEventNames } from "./provider-shapes.js";

export const EVENT_NAME_HEADER = "x-sluice-event-name";

/**
 * The body as posted (run(event) receives it, or the event inside a provider's envelope): the JSON value when it parses (whatever the content
 * type says, as providers differ), else the text; null when there is none.
 */
export function apphookEvent(body: Buffer): unknown {
  if (body.length === 0) return null;
  const text = body.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The names the event answers to: the x-sluice-event-name header, else ?event=, else the names
 * of the body's shape (provider-shapes.ts: Slack's envelope, Zoom's, a Discord message, a `type`).
 */
export function apphookEventNames(request: Pick<EndpointRequest, "headers" | "query">, event: unknown): string[] {
  const given = firstText(request.headers[EVENT_NAME_HEADER]) ?? firstText(request.query.event);
  return given !== undefined ? [given] : bodyEventNames(event);
}

/** Slack's URL verification ({"type": "url_verification", "challenge": …}): the challenge to answer with. */
export function verificationChallenge(event: unknown): { challenge: unknown } | undefined {
  if (!isObject(event) || event.type !== "url_verification" || !("challenge" in event)) return undefined;
  return { challenge: event.challenge };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

function firstText(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first !== "" ? first : undefined;
}
