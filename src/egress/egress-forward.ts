// Plain HTTP through the egress proxy, for clients configured with an HTTP proxy: an
// absolute-form request (`GET http://host:port/path`) is checked like a CONNECT target, sent
// on with node:http to the checked addresses and its response streamed back.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { pipeline } from "node:stream";
import { badRequest, failureHeaders, failureOf, type EgressFailure } from "./egress-failure.js";
import type { AddressSet } from "./egress-guard.js";
import { connectHost, parseHostPort, pinnedLookup, resolveTarget, type LookupFunction } from "./egress-target.js";

export interface ForwardSettings {
  allowPrivate: boolean;
  lookup: LookupFunction;
  connectTimeoutMs: number;
  hostAddresses: AddressSet;
}

// Headers of one hop (RFC 9110 §7.6.1), never passed on, plus any the Connection header names.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.includes(name)));
}

export function respondFailure(res: ServerResponse, failure: EgressFailure): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(failure.status, failureHeaders(failure));
  res.end(`${failure.message}\n`);
}

export async function handleForward(settings: ForwardSettings, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    return respondFailure(res, badRequest("malformed request target"));
  }
  if (url.protocol !== "http:")
    return respondFailure(res, badRequest("only http:// requests are forwarded; tunnel anything else with CONNECT"));
  const target = parseHostPort(url.hostname, url.port || "80");
  if (!target) return respondFailure(res, badRequest("malformed host or port"));
  let addresses;
  try {
    addresses = await resolveTarget(target.host, {
      allowPrivate: settings.allowPrivate,
      lookup: settings.lookup,
      hostAddresses: settings.hostAddresses,
    });
  } catch (error) {
    return respondFailure(res, failureOf(error));
  }
  if (req.destroyed) return;
  const headers = endToEnd(req.headers);
  headers.host ??= url.host;
  const upstream = http.request({
    host: connectHost(target.host, addresses),
    port: target.port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    agent: false,
    lookup: pinnedLookup(addresses),
  });
  const timer = setTimeout(() => {
    const err: NodeJS.ErrnoException = new Error(`connect ETIMEDOUT ${target.host}:${target.port}`);
    err.code = "ETIMEDOUT";
    upstream.destroy(err);
  }, settings.connectTimeoutMs);
  upstream.on("socket", (socket) => socket.once("connect", () => clearTimeout(timer)));
  upstream.on("close", () => clearTimeout(timer));
  upstream.on("error", (error) => respondFailure(res, failureOf(error)));
  upstream.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
    pipeline(answer, res, () => {});
  });
  // The client going away ends the upstream request too.
  res.on("close", () => upstream.destroy());
  pipeline(req, upstream, () => {});
}
