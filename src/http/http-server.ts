// The service's HTTP server: requests to the public endpoints (public-endpoints.ts) and cached
// reads (cached-reads.ts) are answered by node:http directly, every other one goes to Fastify.
// Handed to Fastify as its serverFactory, so Fastify still listens on it, closes it and
// force-closes its connections.
import http from "node:http";
import type { FastifyServerFactory } from "fastify";

// Fastify's own defaults, which it sets only on a server it makes itself.
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** Answers a request and returns true, or returns false to leave it to the next one, then Fastify. */
export type FrontHandler = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

export function serverFactory(inFront: FrontHandler[]): FastifyServerFactory {
  return (fastifyHandler) => {
    const server = http.createServer((req, res) => {
      for (const handler of inFront) if (handler(req, res)) return;
      fastifyHandler(req, res);
    });
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.requestTimeout = 0;
    server.setTimeout(0);
    return server;
  };
}
