// Normalises `$.respond({ status, headers, body })` into the runner's plain response record.
import type { HttpResponseRecord } from "../contract.js";

export function toResponseRecord(options: unknown): HttpResponseRecord {
  const given = (options && typeof options === "object" ? options : {}) as { status?: unknown; headers?: unknown; body?: unknown };
  const status = Number(given.status ?? 200);
  if (!Number.isInteger(status) || status < 100 || status > 599) throw new TypeError(`$.respond: status must be 100..599, got ${String(given.status)}`);
  const headers: Record<string, string> = {};
  if (given.headers && typeof given.headers === "object") {
    for (const [name, value] of Object.entries(given.headers as Record<string, unknown>)) headers[name.toLowerCase()] = String(value);
  }
  const body = given.body;
  if (body === undefined || body === null) return { status, headers, body: { kind: "none" } };
  if (typeof body === "string") return { status, headers, body: { kind: "text", text: body } };
  if (body instanceof Uint8Array) return { status, headers, body: { kind: "base64", data: Buffer.from(body).toString("base64") } };
  return { status, headers, body: { kind: "json", value: JSON.parse(JSON.stringify(body)) } };
}
