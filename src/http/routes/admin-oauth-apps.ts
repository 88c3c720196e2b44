// The OAuth 2 apps users may connect accounts of, configured by the operator (admin token).
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { configureOAuthApp, listOAuthApps, removeOAuthApp } from "../../domain/oauth-apps/manage-oauth-apps.js";
import { ErrorBody } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const OAuthApp = Type.Object({
  app: Type.String(),
  client_id: Type.String(),
  has_client_secret: Type.Boolean({ description: "the secret itself is never shown" }),
  authorize_url: Type.String(),
  token_url: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

const ConfigureBody = Type.Object(
  {
    app: Type.String({
      minLength: 1,
      maxLength: 128,
      description: "the app's name, as connected accounts and app props name it (e.g. github)",
    }),
    client_id: Type.String({ minLength: 1, maxLength: 1024 }),
    client_secret: Type.Optional(
      Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], {
        description: "absent for a public client (PKCE only); stored encrypted",
      }),
    ),
    authorize_url: Type.String({ minLength: 1, maxLength: 2048 }),
    token_url: Type.String({ minLength: 1, maxLength: 2048 }),
    scopes: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);

export const adminOAuthAppRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["admin"];

  app.post(
    "/oauth_apps",
    {
      schema: {
        tags,
        summary: "Configure an OAuth 2 app users may connect accounts of; the same app again replaces it (admin token required)",
        body: ConfigureBody,
        response: { 200: Type.Object({ data: OAuthApp }), 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (request) => ({ data: await configureOAuthApp({ ctx, input: request.body }) }),
  );

  app.get(
    "/oauth_apps",
    {
      schema: {
        tags,
        summary: "List the configured OAuth 2 apps, without their secrets (admin token required)",
        response: { 200: Type.Object({ data: Type.Array(OAuthApp) }), 401: ErrorBody },
      },
    },
    async () => ({ data: await listOAuthApps({ ctx }) }),
  );

  app.delete(
    "/oauth_apps/:app",
    {
      schema: {
        tags,
        summary: "Remove an OAuth 2 app: no new connects; accounts connected already keep working (admin token required)",
        params: Type.Object({ app: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 204: Type.Null(), 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await removeOAuthApp({ ctx, app: request.params.app });
      return reply.status(204).send(null);
    },
  );
};
