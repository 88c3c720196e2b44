// The shape of every Fastify route module of the API: a plugin given the services.
import type { FastifyPluginAsync } from "fastify";
import type { Services } from "../../services.js";

export type RouteModule = FastifyPluginAsync<{ services: Services }>;
