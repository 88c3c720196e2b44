// `include` / `exclude` (spec: common parameters): comma-separated top-level fields of each
// returned resource, applied to `data` (an object or each item of an array) in one hook.
import type { FastifyInstance, FastifyRequest } from "fastify";

function fieldList(value: unknown): Set<string> | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  return new Set(
    value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

function project(resource: unknown, include?: Set<string>, exclude?: Set<string>): unknown {
  if (!resource || typeof resource !== "object" || Array.isArray(resource)) return resource;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    if (include && !include.has(key)) continue;
    if (exclude?.has(key)) continue;
    out[key] = value;
  }
  return out;
}

function projectionOf(request: FastifyRequest) {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body && typeof request.body === "object" ? request.body : {}) as Record<string, unknown>;
  return { include: fieldList(query.include ?? body.include), exclude: fieldList(query.exclude ?? body.exclude) };
}

/** Whether the request asks for include/exclude (a route sending raw JSON must not then). */
export function wantsProjection(request: FastifyRequest): boolean {
  const { include, exclude } = projectionOf(request);
  return Boolean(include || exclude);
}

export function installProjection(app: FastifyInstance): void {
  app.addHook("preSerialization", async (request, _reply, payload: any) => {
    if (!payload || typeof payload !== "object" || !("data" in payload)) return payload;
    const { include, exclude } = projectionOf(request);
    if (!include && !exclude) return payload;
    const data = Array.isArray(payload.data)
      ? payload.data.map((item: unknown) => project(item, include, exclude))
      : project(payload.data, include, exclude);
    return { ...payload, data };
  });
}
