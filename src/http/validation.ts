// Two validators: query strings and path params are strings on the wire and are coerced to
// the schema's types; JSON bodies are validated as sent, so a wrong type is a 400, and
// unknown fields are refused rather than silently dropped.
import Ajv from "ajv";
import addFormats from "ajv-formats";
import type { FastifyInstance, FastifySchemaValidationError } from "fastify";

function makeAjv(coerceTypes: boolean | "array") {
  const ajv = new Ajv.default({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv;
}

export function installValidation(app: FastifyInstance): void {
  const forStrings = makeAjv("array");
  const forBodies = makeAjv(false);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === "body" ? forBodies : forStrings;
    return ajv.compile(schema);
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
  app.addHook("preValidation", async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
  });
}
