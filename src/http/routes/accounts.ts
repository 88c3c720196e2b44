// Connected accounts: credentials of an app that app props name by id. Credentials go in and
// are never shown again; the answers list only their field names.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createAccount, deleteAccount, getAccount, listAccounts, updateAccount } from "../../domain/accounts/manage-accounts.js";
import { actorOf } from "../auth.js";
import { ErrorBody, errorResponses, IdParams, ListQuery, PageInfo, pageRequest, ProjectionQuery } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const Account = Type.Object({
  id: Type.String({ description: "apn_…, what an app prop's authProvisionId names" }),
  app: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  fields: Type.Array(Type.String(), { description: "names of the credentials' fields (their values are never shown)" }),
  webhook_url: Type.String({
    description: "where the app's provider posts events: they run the sources whose $.interface.apphook prop is bound to this account",
  }),
  refresh_failure: Type.Union([Type.String(), Type.Null()], {
    description: "why the last OAuth refresh of its token failed (connect or save the account again); null when it did not",
  }),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

const Name = Type.Union([Type.String({ maxLength: 256 }), Type.Null()]);
const Credentials = Type.Unknown({ description: 'a JSON object (e.g. {"api_key": "…"}); stored encrypted, never returned' });

const CreateBody = Type.Object(
  { app: Type.Optional(Type.String({ maxLength: 128 })), name: Type.Optional(Name), credentials: Type.Optional(Credentials) },
  { additionalProperties: false },
);
const UpdateBody = Type.Object({ name: Type.Optional(Name), credentials: Type.Optional(Credentials) }, { additionalProperties: false });

export const accountRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["accounts"];

  app.post(
    "/accounts",
    {
      schema: {
        tags,
        summary: "Connect an account of an app (its credentials)",
        querystring: ProjectionQuery,
        body: CreateBody,
        response: { 200: Type.Object({ data: Account }), ...errorResponses },
      },
    },
    async (request) => ({ data: await createAccount({ ctx, actor: actorOf(request), input: request.body ?? {} }) }),
  );

  app.get(
    "/users/me/accounts",
    {
      schema: {
        tags,
        summary: "List the account's connected accounts",
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(Account) }), ...errorResponses },
      },
    },
    async (request) => listAccounts({ ctx, actor: actorOf(request), page: pageRequest(request.query) }),
  );

  app.get(
    "/accounts/:id",
    {
      schema: {
        tags,
        summary: "Read a connected account (without its credentials)",
        params: IdParams,
        querystring: ProjectionQuery,
        response: { 200: Type.Object({ data: Account }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getAccount({ ctx, actor: actorOf(request), id: request.params.id }) }),
  );

  app.put(
    "/accounts/:id",
    {
      schema: {
        tags,
        summary: "Rename a connected account or replace its credentials",
        params: IdParams,
        querystring: ProjectionQuery,
        body: UpdateBody,
        response: { 200: Type.Object({ data: Account }), ...errorResponses },
      },
    },
    async (request) => ({ data: await updateAccount({ ctx, actor: actorOf(request), id: request.params.id, input: request.body ?? {} }) }),
  );

  app.delete(
    "/accounts/:id",
    {
      schema: {
        tags,
        summary: "Delete a connected account (refused while a source or workflow uses it, naming them)",
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await deleteAccount({ ctx, actor: actorOf(request), id: request.params.id });
      return reply.status(204).send(null);
    },
  );
};
