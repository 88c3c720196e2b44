// The runs of a workflow: the list (newest first), one run with what each step did, and the
// owner's resume and cancel of a paused run (what its resume and cancel URLs do).
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { getRun, listRuns } from "../../domain/workflows/runs/list-runs.js";
import { cancelRun, resumeRun } from "../../domain/workflows/runs/decide-paused-run.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const Ms = Type.Union([Type.Integer(), Type.Null()], { description: "milliseconds since the epoch" });

const Run = Type.Object({
  id: Type.String({ description: "run_…" }),
  workflow_id: Type.String(),
  status: Type.Union(["running", "paused", "succeeded", "failed", "cancelled"].map((s) => Type.Literal(s))),
  summary: Type.Union([Type.String(), Type.Null()], { description: 'the last $.export("$summary", …) of its steps' }),
  trigger_event: Type.Unknown(),
  started_at: Type.Integer({ description: "milliseconds since the epoch" }),
  ended_at: Ms,
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
});

const RunStep = Type.Object({
  name: Type.String(),
  status: Type.Union(["succeeded", "failed", "skipped", "paused", "pending"].map((s) => Type.Literal(s))),
  started_at: Ms,
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  exports: Type.Record(Type.String(), Type.Unknown()),
  return_value: Type.Unknown(),
  logs: Type.Array(Type.Unknown()),
  error: Type.Unknown(),
});

const RunParams = Type.Object({ id: IdParams.properties.id, run_id: Type.String({ minLength: 1, maxLength: 128 }) });

export const workflowRunRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["workflows"];

  app.get(
    "/workflows/:id/runs",
    {
      schema: {
        tags,
        summary: "List a workflow's runs, newest first",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(Run) }), ...errorResponses },
      },
    },
    async (request) => listRuns({ ctx, actor: actorOf(request), id: request.params.id, page: pageRequest(request.query) }),
  );

  app.get(
    "/workflows/:id/runs/:run_id",
    {
      schema: {
        tags,
        summary: "Read one run of a workflow, with each step's status, results, logs and error",
        params: RunParams,
        querystring: ProjectionQuery,
        response: { 200: Type.Object({ data: Type.Composite([Run, Type.Object({ steps: Type.Array(RunStep) })]) }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getRun({ ctx, actor: actorOf(request), id: request.params.id, runId: request.params.run_id }) }),
  );

  const Decided = (status: string) => Type.Object({ data: Type.Object({ status: Type.Literal(status) }) });
  app.post(
    "/workflows/:id/runs/:run_id/resume",
    {
      schema: {
        tags,
        summary: "Resume a paused run; `data` becomes the paused step's $resume_data",
        params: RunParams,
        body: Type.Optional(Type.Object({ data: Type.Optional(Type.Unknown()) })),
        response: { 200: Decided("resumed"), ...errorResponses },
      },
    },
    async (request) => ({
      data: await resumeRun({
        ctx,
        queue: services.queue,
        actor: actorOf(request),
        id: request.params.id,
        runId: request.params.run_id,
        data: request.body?.data ?? null,
      }),
    }),
  );

  app.post(
    "/workflows/:id/runs/:run_id/cancel",
    {
      schema: { tags, summary: "Cancel a paused run", params: RunParams, response: { 200: Decided("cancelled"), ...errorResponses } },
    },
    async (request) => ({
      data: await cancelRun({ ctx, queue: services.queue, actor: actorOf(request), id: request.params.id, runId: request.params.run_id }),
    }),
  );
};
