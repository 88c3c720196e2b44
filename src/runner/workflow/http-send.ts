// `$.send.http({ method, url, headers, data })`, as Pipedream documents it: the request is made
// by the service after the step's results are stored, not by the step, so it never delays the
// step and goes out once the step has succeeded. Here it is only checked and recorded as data.
import type { HttpSendRequest } from "../protocol/workflow-execution.js";

export const MAX_HTTP_SENDS_PER_STEP = 10;
const MAX_URL_LENGTH = 2048;
const MAX_BODY_BYTES = 256 * 1024;
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]);

export function httpSendRequest(input: unknown): HttpSendRequest {
  if (!input || typeof input !== "object") throw new TypeError("$.send.http needs { method?, url, headers?, data? }");
  const { method = "POST", url, headers = {}, data, body } = input as Record<string, unknown>;
  const verb = String(method).toUpperCase();
  if (!METHODS.has(verb)) throw new TypeError(`$.send.http's method must be one of ${[...METHODS].join(", ")}`);
  if (typeof url !== "string" || url.length > MAX_URL_LENGTH || !/^https?:\/\//i.test(url))
    throw new TypeError(`$.send.http's url must be an http or https URL of at most ${MAX_URL_LENGTH} characters`);
  if (!headers || typeof headers !== "object" || Array.isArray(headers)) throw new TypeError("$.send.http's headers must be an object");
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) sent[name.toLowerCase()] = String(value);
  const payload = data ?? body;
  let text: string | null = null;
  if (payload !== undefined && payload !== null) {
    text = typeof payload === "string" ? payload : JSON.stringify(payload);
    if (typeof payload !== "string") sent["content-type"] ??= "application/json";
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new TypeError(`$.send.http's data is larger than ${MAX_BODY_BYTES / 1024} KB`);
  }
  return { method: verb, url, headers: sent, body: text };
}
