// Parameters shared by many routes: pagination and include/exclude (spec: common params).
import { Type, type Static } from "@sinclair/typebox";

export const Cursor = Type.String({ minLength: 1, maxLength: 512 });

export const PaginationQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  after: Type.Optional(Cursor),
  before: Type.Optional(Cursor),
});

export const ProjectionQuery = Type.Object({
  include: Type.Optional(Type.String({ maxLength: 1024 })),
  exclude: Type.Optional(Type.String({ maxLength: 1024 })),
});

export const ListQuery = Type.Composite([PaginationQuery, ProjectionQuery]);
export type ListQuery = Static<typeof ListQuery>;

export const PageInfo = Type.Object({
  total_count: Type.Integer(),
  count: Type.Integer(),
  start_cursor: Type.String(),
  end_cursor: Type.String(),
});

export const ErrorBody = Type.Object({ error: Type.String(), code: Type.Optional(Type.String()) });

export const Id = (prefix: string) => Type.String({ minLength: 1, maxLength: 128, description: `an id starting with ${prefix}_` });

/** Code of the files relative imports of component_code name, by path relative to it (deploys from local files). */
export const ComponentFiles = Type.Record(Type.String({ minLength: 1, maxLength: 1024 }), Type.String({ maxLength: 1024 * 1024 }), {
  maxProperties: 100,
  description: 'code of the files the code\'s relative imports name, by path relative to the code (e.g. "lib/util.js")',
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

export function pageRequest(query: { limit?: number; after?: string; before?: string }) {
  return { limit: query.limit ?? 10, after: query.after, before: query.before };
}

/** Standard error responses, so the OpenAPI document lists them. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};

/** `expand=event` (a comma-separated list) asks for full events in event summaries. */
export function expandsEvent(expand: string | undefined): boolean {
  return (expand ?? "")
    .split(",")
    .map((s) => s.trim())
    .includes("event");
}
