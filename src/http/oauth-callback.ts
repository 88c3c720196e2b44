// SLUICE_PUBLIC_URL/oauth/callback, where an OAuth 2 provider sends the user back. No API key:
// the state names the user. Success leads to the dashboard's accounts page showing the new
// account; a failure (consent denied, a bad or used state, the token endpoint refusing) is a
// 4xx page saying why in text, under the dashboard's strict CSP, with a way back.
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { finishOAuthConnect } from "../domain/accounts/oauth-connect-finish.js";
import type { Ctx } from "../domain/context.js";
import { ServiceError } from "../lib/errors.js";
import { DASHBOARD_CSP } from "./dashboard.js";
import { serviceErrorReply } from "./error-handler.js";

const Query = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 512 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
});

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function failurePage(message: string): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Account not connected</title><link rel="stylesheet" href="/ui/app.css"></head>',
    '<body><main><h1>Account not connected</h1><p class="error" role="alert">',
    escapeHtml(message),
    '</p><p><a href="/ui#/accounts">Back to the accounts</a></p></main></body></html>',
  ].join("");
}

export function installOAuthCallback(app: FastifyInstance, ctx: Ctx): void {
  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .get("/oauth/callback", { schema: { hide: true, querystring: Query } }, async (request, reply) => {
      reply.header("content-security-policy", DASHBOARD_CSP).header("referrer-policy", "no-referrer").header("cache-control", "no-store");
      try {
        const account = await finishOAuthConnect({ ctx, input: request.query });
        return reply.redirect(`/ui#/accounts/${encodeURIComponent(account.id)}`, 303);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        const { status } = serviceErrorReply(error);
        return reply.status(status).header("content-type", "text/html; charset=utf-8").send(failurePage(error.message));
      }
    });
}
