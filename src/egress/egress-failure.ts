// How the egress proxy reports a failure: an HTTP status by cause (refused by policy 403, DNS
// failure 502, connection refused 502, timeout 504, anything else 502) with the cause named in
// a header, so the runner can rebuild the error Node itself would have raised.
import type { OutgoingHttpHeaders } from "node:http";
import { EgressRefusedError } from "./egress-guard.js";
import {
  ADDRESS_HEADER,
  EGRESS_REFUSED,
  EGRESS_TUNNEL_LIMIT,
  ERROR_HEADER,
  SYSCALL_HEADER,
  TUNNEL_LIMIT_HEADER,
  TUNNEL_LIMIT_MESSAGE,
} from "./egress-protocol.js";
import { ResolveError } from "./egress-target.js";

export interface EgressFailure {
  status: number;
  code: string;
  syscall?: string;
  address?: string;
  message: string;
  /** The account's cap of open tunnels, on a EGRESS_TUNNEL_LIMIT failure. */
  limit?: number;
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  502: "Bad Gateway",
  504: "Gateway Timeout",
};

/** The code of a network error; Node's AggregateError (several addresses tried) has its first. */
function codeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: unknown[] } | undefined;
  if (typeof e?.code === "string") return e.code;
  const first = e?.errors?.[0] as { code?: unknown } | undefined;
  return typeof first?.code === "string" ? first.code : undefined;
}

export function failureOf(error: unknown): EgressFailure {
  if (error instanceof EgressRefusedError)
    return { status: 403, code: EGRESS_REFUSED, address: error.address, message: `${error.message}: ${error.host}` };
  if (error instanceof ResolveError) return { status: 502, code: error.code, syscall: "getaddrinfo", message: error.message };
  const code = codeOf(error) ?? "EGRESS_PROXY_ERROR";
  const message = String((error as Error)?.message ?? error);
  return { status: code === "ETIMEDOUT" ? 504 : 502, code, syscall: "connect", message };
}

export function tunnelLimit(limit: number): EgressFailure {
  return {
    status: 429,
    code: EGRESS_TUNNEL_LIMIT,
    limit,
    message: `${TUNNEL_LIMIT_MESSAGE} (at most ${limit}, SLUICE_MAX_TUNNELS_PER_ACCOUNT)`,
  };
}

export function badRequest(message: string, status = 400): EgressFailure {
  return { status, code: status === 431 ? "HEADERS_TOO_LARGE" : "BAD_REQUEST", message };
}

export function failureHeaders(failure: EgressFailure): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { [ERROR_HEADER]: failure.code, "content-type": "text/plain; charset=utf-8", connection: "close" };
  if (failure.syscall) headers[SYSCALL_HEADER] = failure.syscall;
  if (failure.address) headers[ADDRESS_HEADER] = failure.address;
  if (failure.limit !== undefined) headers[TUNNEL_LIMIT_HEADER] = String(failure.limit);
  return headers;
}

/** The failure as raw HTTP/1.1 bytes, for sockets no longer owned by the HTTP server. */
export function rawFailureResponse(failure: EgressFailure): string {
  const body = `${failure.message}\n`;
  const headers = { ...failureHeaders(failure), "content-length": Buffer.byteLength(body) };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${String(value)}`);
  return `HTTP/1.1 ${failure.status} ${REASONS[failure.status] ?? "Error"}\r\n${lines.join("\r\n")}\r\n\r\n${body}`;
}
