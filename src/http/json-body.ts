// JSON body parsing. An empty body with content-type application/json is accepted as "no
// body", because real clients send query-string endpoints (subscriptions, webhooks) that way.
import type { FastifyInstance } from "fastify";
import secureJson from "secure-json-parse";

export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  // Parameters such as "; charset=utf-8" are part of the header Fastify matches against.
  app.addContentTypeParser(/^application\/([a-z0-9.+-]*\+)?json\s*(;.*)?$/i, { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: "remove", constructorAction: "remove" }));
    } catch {
      const error = new Error("malformed JSON body") as Error & { statusCode: number };
      error.statusCode = 400;
      done(error, undefined);
    }
  });
}
