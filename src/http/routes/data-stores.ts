// Data stores and their records (key-value stores that user code reaches through a
// `data_store` prop). Thin: each route validates and calls one verb of domain/data-stores.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createDataStore, deleteDataStore, getDataStore, listDataStores } from "../../domain/data-stores/manage-data-stores.js";
import { getRecord, listRecords } from "../../domain/data-stores/record-reads.js";
import { deleteRecordOrNotFound, putRecord } from "../../domain/data-stores/record-requests.js";
import { MAX_NAME_CHARACTERS, MAX_TTL_SECONDS } from "../../domain/data-stores/record-limits.js";
import { actorOf } from "../auth.js";
import { errorResponses, IdParams, ListQuery, PageInfo, pageRequest, PaginationQuery } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const DataStore = Type.Object({ id: Type.String(), name: Type.String(), created_at: Type.Integer() });
const DataRecord = Type.Object({
  key: Type.String(),
  value: Type.Unknown(),
  updated_at: Type.Integer(),
  expires_at: Type.Union([Type.Integer(), Type.Null()]),
});
const RecordParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  key: Type.String({ minLength: 1, maxLength: 2048 }),
});
const PutBody = Type.Object(
  {
    value: Type.Unknown({ description: "any JSON value" }),
    ttl_seconds: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: MAX_TTL_SECONDS }), Type.Null()], {
        description: "seconds until the record expires; absent or null: it does not",
      }),
    ),
  },
  { additionalProperties: false },
);

export const dataStoreRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["data stores"];

  app.post(
    "/data_stores",
    {
      schema: {
        tags,
        summary: "Create a data store",
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: MAX_NAME_CHARACTERS }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ data: DataStore }), ...errorResponses },
      },
    },
    async (request) => ({ data: await createDataStore({ ctx, actor: actorOf(request), input: { name: request.body.name } }) }),
  );

  app.get(
    "/users/me/data_stores",
    {
      schema: {
        tags,
        summary: "List the account's data stores",
        querystring: ListQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(DataStore) }), ...errorResponses },
      },
    },
    async (request) => listDataStores({ ctx, actor: actorOf(request), page: pageRequest(request.query) }),
  );

  app.get(
    "/data_stores/:id",
    {
      schema: {
        tags,
        summary: "Read a data store",
        params: IdParams,
        response: { 200: Type.Object({ data: DataStore }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getDataStore({ ctx, actor: actorOf(request), id: request.params.id }) }),
  );

  app.delete(
    "/data_stores/:id",
    {
      schema: { tags, summary: "Delete a data store and its records", params: IdParams, response: { 204: Type.Null(), ...errorResponses } },
    },
    async (request, reply) => {
      await deleteDataStore({ ctx, actor: actorOf(request), id: request.params.id });
      return reply.status(204).send(null);
    },
  );

  app.get(
    "/data_stores/:id/records",
    {
      schema: {
        tags,
        summary: "List a data store's records in key order (expired ones never appear)",
        params: IdParams,
        querystring: PaginationQuery,
        response: { 200: Type.Object({ page_info: PageInfo, data: Type.Array(DataRecord) }), ...errorResponses },
      },
    },
    async (request) => listRecords(ctx, actorOf(request).userId, request.params.id, pageRequest(request.query)),
  );

  app.get(
    "/data_stores/:id/records/:key",
    {
      schema: {
        tags,
        summary: "Read one record",
        params: RecordParams,
        response: { 200: Type.Object({ data: DataRecord }), ...errorResponses },
      },
    },
    async (request) => ({ data: await getRecord(ctx, actorOf(request).userId, request.params.id, request.params.key) }),
  );

  app.put(
    "/data_stores/:id/records/:key",
    {
      schema: {
        tags,
        summary: "Set one record (replaced whole, with the expiry given or none)",
        params: RecordParams,
        body: PutBody,
        response: { 200: Type.Object({ data: DataRecord }), ...errorResponses },
      },
    },
    async (request) => ({
      data: await putRecord(ctx, {
        userId: actorOf(request).userId,
        storeId: request.params.id,
        key: request.params.key,
        value: request.body.value,
        ttlSeconds: request.body.ttl_seconds,
      }),
    }),
  );

  app.delete(
    "/data_stores/:id/records/:key",
    { schema: { tags, summary: "Delete one record", params: RecordParams, response: { 204: Type.Null(), ...errorResponses } } },
    async (request, reply) => {
      await deleteRecordOrNotFound(ctx, { userId: actorOf(request).userId, storeId: request.params.id, key: request.params.key });
      return reply.status(204).send(null);
    },
  );
};
