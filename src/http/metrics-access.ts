// Who may read /metrics. With a token configured, only a request bearing it, wherever it
// comes from. Without one, only a client on this machine that is not a proxy forwarding
// someone else (X-Forwarded-For): everyone else is told there is nothing there (404), so an
// exposed port does not even reveal that metrics exist.
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

export type MetricsAccess = "allowed" | "unauthorized" | "hidden";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

export function metricsAccess(headers: IncomingHttpHeaders, remoteAddress: string | undefined, token: string | undefined): MetricsAccess {
  if (token !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
    return match && sameText(match[1]!.trim(), token) ? "allowed" : "unauthorized";
  }
  if (headers["x-forwarded-for"] !== undefined) return "hidden";
  return LOOPBACK.test(remoteAddress ?? "") ? "allowed" : "hidden";
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
