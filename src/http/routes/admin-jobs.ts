// The queue's dead jobs for the operator (admin token required): listed, and sent back to the
// queue (domain/jobs/manage-dead-jobs.ts).
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { listDeadJobs, retryDeadJob } from "../../domain/jobs/manage-dead-jobs.js";
import { ErrorBody, PageInfo, PaginationQuery, pageRequest } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const DeadJob = Type.Object({
  id: Type.String(),
  type: Type.String({ description: "the job type, e.g. source.run or delivery" }),
  state: Type.Literal("dead"),
  user_id: Nullable(Type.String()),
  payload: Type.Unknown(),
  attempts: Type.Integer({ description: "attempts made before it died" }),
  last_error: Nullable(Type.String({ description: "why the last attempt failed" })),
  created_at: Type.Integer({ description: "when it was enqueued (ms)" }),
  died_at: Type.Integer({ description: "when it used up its attempts (ms)" }),
});

const JobsQuery = Type.Composite([
  PaginationQuery,
  Type.Object({ state: Type.Literal("dead", { description: "only dead jobs are listed" }) }),
]);

export const adminJobRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;

  app.get(
    "/jobs",
    {
      schema: {
        tags: ["admin"],
        summary: "List the dead jobs (that used up SLUICE_JOB_MAX_ATTEMPTS), newest first (admin token required)",
        querystring: JobsQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(DeadJob) }), 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (request) => listDeadJobs({ ctx, page: pageRequest(request.query) }),
  );

  app.post(
    "/jobs/:id/retry",
    {
      schema: {
        tags: ["admin"],
        summary: "Send a dead job back to the queue, due now with its attempts reset (admin token required)",
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 204: Type.Null(), 401: ErrorBody, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await retryDeadJob({ ctx, id: request.params.id });
      return reply.status(204).send(null);
    },
  );
};
