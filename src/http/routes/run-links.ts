// The resume and cancel URLs of paused workflow runs: any method on /r/<token>, no API key
// (public-endpoints.ts serves them in front of Fastify, like the other public endpoints).
import { receiveRunLink } from "../../domain/workflows/runs/receive-run-link.js";
import { RUN_LINK_PREFIX } from "../../domain/workflows/runs/run-links.js";
import type { Services } from "../../services.js";
import type { PublicEndpoint } from "../public-endpoints.js";

export function runLinkEndpoints(services: Services): PublicEndpoint {
  return { prefix: RUN_LINK_PREFIX, receive: (request) => receiveRunLink(services, request) };
}
