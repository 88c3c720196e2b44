// Two validators: query strings and path params are strings on the wire and are coerced to
// the schema's types; JSON bodies are validated as sent, so a wrong type is a 400, and
// unknown fields are refused rather than silently dropped.
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { FastifyInstance, FastifySchemaValidationError } from "fastify";
import { ServiceError } from "../lib/errors.js";

function makeAjv(coerceTypes: boolean | "array") {
  const ajv = new Ajv.default({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Compiles on the first request instead of at start: compiling every route's schemas was the
 * largest part of a start (about 0.4 s of under 3 s), and most routes of a given server are
 * never called in its first seconds. A schema Ajv cannot compile still fails loudly (a 500 on
 * that route; the API tests call every route).
 */
function compileOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    compiled ??= compile();
    const valid = compiled(data, context);
    validate.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  // Fastify passes the request as parent data (which lets Ajv coerce and default a whole
  // query or body) only to a function that carries schemaEnv, as Ajv's own do.
  Object.defineProperty(validate, "schemaEnv", { get: () => (compiled ??= compile()).schemaEnv });
  return validate;
}

export function installValidation(app: FastifyInstance): void {
  const forStrings = makeAjv("array");
  const forBodies = makeAjv(false);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === "body" ? forBodies : forStrings;
    return compileOnFirstUse(() => ajv.compile(schema));
  });
}

/** Names the offending field, including unknown ones ("body: unknown field \"bogus\""). */
export function formatValidationErrors(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const first = errors[0];
  if (!first) return new Error(`${dataVar} is invalid`);
  const where = `${dataVar}${first.instancePath.replace(/\//g, ".")}`;
  const params = first.params as Record<string, unknown>;
  if (first.keyword === "additionalProperties") return new Error(`${where}: unknown field "${String(params.additionalProperty)}"`);
  if (first.keyword === "required") return new Error(`${where}: ${String(params.missingProperty)} is required`);
  return new Error(`${where} ${first.message ?? "is invalid"}`);
}

/** Requests to routes with a body schema may omit the body: it is then an empty object. */
export function installEmptyBodyDefault(app: FastifyInstance): void {
  app.addHook("preValidation", (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
    done();
  });
}

/** The first string inside `value` (searched deeply) that holds a NUL character, if any. */
function pathOfNul(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined;
  if (!value || typeof value !== "object" || depth > 64) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = key.includes("\u0000") ? `${path}.${JSON.stringify(key)}` : pathOfNul(item, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses NUL characters in the given request parts with a 400. PostgreSQL text cannot
 * hold them, so without this check the same input would be a 400 on SQLite and a 500 on
 * PostgreSQL. Path params are ids everywhere; query strings and bodies are checked only in
 * the scopes that store them as text (the authenticated and admin API).
 */
export function installNulGuard(scope: FastifyInstance, parts: ("params" | "query" | "body")[]): void {
  // A callback hook, not a promise: it runs on every request.
  scope.addHook("preValidation", (request, _reply, done) => {
    for (const part of parts) {
      const where = pathOfNul(request[part], part);
      if (where) return done(new ServiceError("VALIDATION", `${where} must not contain NUL characters`));
    }
    done();
  });
}
