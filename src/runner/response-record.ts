// Encodes what user code gave to this.http.respond (sources) or $.respond (workflows) as the
// runner's plain response record — one rule for both: a status outside 200..599 is an error
// of the code (it surfaces on $errors; the request gets a 500 naming it), header names are
// lower-cased and null/undefined values dropped, a body is nothing, text, bytes or JSON.
import type { HttpResponseRecord } from "./protocol/component-execution.js";

export function toResponseRecord(given: unknown, call: string): HttpResponseRecord {
  const response = (given && typeof given === "object" ? given : {}) as { status?: unknown; headers?: unknown; body?: unknown };
  const status = Number(response.status ?? 200);
  // A 1xx is not a final answer: the client would wait for another one on the same connection.
  if (!Number.isInteger(status) || status < 200 || status > 599)
    throw new TypeError(`${call}: status must be a final HTTP status, 200..599, got ${String(response.status)}`);
  const headers: Record<string, string> = {};
  if (response.headers && typeof response.headers === "object") {
    for (const [name, value] of Object.entries(response.headers as Record<string, unknown>))
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
  }
  const body = response.body;
  if (body === undefined || body === null) return { status, headers, body: { kind: "none" } };
  if (typeof body === "string") return { status, headers, body: { kind: "text", text: body } };
  if (body instanceof Uint8Array) return { status, headers, body: { kind: "base64", data: Buffer.from(body).toString("base64") } };
  return { status, headers, body: { kind: "json", value: JSON.parse(JSON.stringify(body)) } };
}
