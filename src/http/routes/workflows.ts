import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { listWorkflows } from "../../domain/workflows/list-workflows.js";
import { getWorkflow } from "../../domain/workflows/manage-workflow.js";
import {
  createWorkflowWithTrigger,
  deleteWorkflowWithTrigger,
  updateWorkflowWithTrigger,
} from "../../domain/workflows/triggers/workflow-with-trigger.js";
import { Trigger, TriggerInput } from "./workflow-trigger-schema.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const StepInput = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "keep a step's id when changing a workflow" })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "steps.<name> in later steps; step_<n> when absent" })),
    code: Type.Optional(
      Type.String({ minLength: 1, description: "a module whose default export has async run({ steps, $ }) and may declare props" }),
    ),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "a published action's registry key" })),
    version: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "the action's version; the newest recorded when absent" }),
    ),
    component_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "an action the account saved (sc_…)" })),
    props: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'configured prop values: app props {"authProvisionId": "apn_…"} (or an inline {"$auth": {…}}), data stores {"dataStoreId": "ds_…"}',
      }),
    ),
  },
  { additionalProperties: false },
);
const StepView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Union([Type.Literal("code"), Type.Literal("action")]),
  code: Type.Optional(Type.String()),
  action: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  component_id: Type.Optional(Type.String()),
  props: Type.Record(Type.String(), Type.Unknown()),
});
const Steps = Type.Array(StepInput, { minItems: 1, maxItems: 50 });
const Name = Type.String({ minLength: 1, maxLength: 256 });

const Workflow = Type.Object({
  id: Type.String(),
  name: Type.String(),
  trigger: Trigger,
  steps: Type.Array(StepView),
  active: Type.Boolean(),
  endpoint_url: Type.String(),
  global_error_workflow: Type.Boolean(),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

export const workflowRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const runner = services.runner;
  const tags = ["workflows"];

  app.post(
    "/workflows",
    {
      schema: {
        tags,
        summary: "Create a workflow from code steps and actions",
        querystring: ProjectionQuery,
        body: Type.Object(
          {
            name: Type.Optional(Name),
            trigger: Type.Optional(TriggerInput),
            steps: Steps,
            active: Type.Optional(Type.Boolean()),
            ...ProjectionQuery.properties,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: Workflow }), ...errorResponses },
      },
    },
    async (request) => ({ data: await createWorkflowWithTrigger({ ctx, runner, actor: actorOf(request), input: request.body }) }),
  );

  app.get(
    "/users/me/workflows",
    {
      schema: {
        tags,
        summary: "List the account's workflows (its global error workflow included)",
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(Workflow) }), ...errorResponses },
      },
    },
    async (request) => listWorkflows({ ctx, actor: actorOf(request), page: pageRequest(request.query) }),
  );

  app.get(
    "/workflows/:id",
    {
      schema: {
        tags,
        summary: "Read a workflow",
        params: IdParams,
        querystring: ProjectionQuery,
        response: { 200: Type.Object({ data: Workflow }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getWorkflow({ ctx, actor: actorOf(request), id: request.params.id }) }),
  );

  app.put(
    "/workflows/:id",
    {
      schema: {
        tags,
        summary: "Change a workflow's name, trigger, steps or active flag",
        params: IdParams,
        querystring: ProjectionQuery,
        body: Type.Object(
          {
            name: Type.Optional(Name),
            trigger: Type.Optional(TriggerInput),
            steps: Type.Optional(Steps),
            active: Type.Optional(Type.Boolean()),
            ...ProjectionQuery.properties,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: Workflow }), ...errorResponses },
      },
    },
    async (request) => ({
      data: await updateWorkflowWithTrigger({ ctx, runner, actor: actorOf(request), id: request.params.id, input: request.body }),
    }),
  );

  app.delete(
    "/workflows/:id",
    {
      schema: {
        tags,
        summary: "Delete a workflow, the subscriptions to and from it and the source its trigger made",
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      await deleteWorkflowWithTrigger({ ctx, runner, actor: actorOf(request), id: request.params.id });
      return reply.status(204).send(null);
    },
  );
};
