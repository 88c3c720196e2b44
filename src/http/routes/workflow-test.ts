// POST /v1/workflows/{id}/test: runs the saved steps, or unsaved ones from the builder, on a
// given event and answers each step's result; it stores no run and emits nothing.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { testWorkflow } from "../../domain/workflows/test-workflow.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

// Steps take the form of PUT /v1/workflows/{id}'s; the domain verb checks their fields.
const StepsInput = Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1, maxItems: 50 });
const Failure = Type.Object({ name: Type.String(), message: Type.String(), stack: Type.String() });
const Log = Type.Object({ level: Type.String(), message: Type.String(), ts: Type.Number() });

const StepResult = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal("succeeded"), Type.Literal("failed"), Type.Literal("paused"), Type.Literal("skipped")]),
  exports: Type.Record(Type.String(), Type.Unknown()),
  return_value: Type.Unknown(),
  logs: Type.Array(Log),
  error: Type.Union([Failure, Type.Null()]),
});

const TestResult = Type.Object({
  status: Type.Union([Type.Literal("succeeded"), Type.Literal("failed"), Type.Literal("paused")]),
  duration_ms: Type.Integer(),
  steps: Type.Array(StepResult),
  emits: Type.Array(Type.Unknown()),
  response: Type.Unknown(),
  exited: Type.Boolean(),
});

export const workflowTestRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    "/workflows/:id/test",
    {
      schema: {
        tags: ["workflows"],
        summary: "Run the workflow's steps (or the given unsaved ones) on an event, without storing a run or emitting anything",
        params: IdParams,
        body: Type.Object(
          {
            event: Type.Optional(Type.Unknown({ description: "steps.trigger.event" })),
            steps: Type.Optional(StepsInput),
            through_step: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "stop after the step of this name" })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: TestResult }), ...errorResponses },
      },
    },
    async (request) => ({
      data: await testWorkflow({
        ctx: services.ctx,
        runner: services.runner,
        actor: actorOf(request),
        id: request.params.id,
        input: request.body as Parameters<typeof testWorkflow>[0]["input"],
      }),
    }),
  );
};
