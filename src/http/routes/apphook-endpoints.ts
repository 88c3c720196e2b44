// Inbound URLs of connected accounts (no API key): /a/<inbound key>, where an app's provider
// posts the events that run the account's apphook sources (public-endpoints.ts serves them;
// the domain answers Slack's URL verification and queues the runs). GET and HEAD only tell
// whether the URL exists.
import { receiveApphookRequest } from "../../domain/apphooks/receive-apphook-request.js";
import type { Services } from "../../services.js";
import type { PublicEndpoint } from "../public-endpoints.js";

const METHODS = new Set(["POST", "PUT", "PATCH", "GET", "HEAD"]);

export function apphookEndpoints(services: Services): PublicEndpoint {
  const deps = { ctx: services.ctx, queue: services.queue };
  return { prefix: "/a/", methods: METHODS, receive: (request) => receiveApphookRequest(deps, request) };
}
