// OAuth 2 connects, for a user's key: which apps can be connected by OAuth, and the start of a
// connect (the provider URL to open). The callback that ends it needs no key (oauth-callback.ts).
import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { startOAuthConnect } from "../../domain/accounts/oauth-connect-start.js";
import { listOAuthApps } from "../../domain/oauth-apps/manage-oauth-apps.js";
import { actorOf } from "../auth.js";
import { errorResponses } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const Start = Type.Object({
  url: Type.String({ description: "the provider's consent page: open it in the browser" }),
  state: Type.String({ description: "single use; expires at expires_at" }),
  redirect_uri: Type.String({ description: "SLUICE_PUBLIC_URL/oauth/callback, where the provider sends the user back" }),
  expires_at: Type.Integer(),
});

export const oauthConnectRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = services.ctx;
  const tags = ["accounts"];

  app.get(
    "/accounts/oauth_apps",
    {
      schema: {
        tags,
        summary: "The apps whose accounts can be connected by OAuth (configured by the operator)",
        response: {
          200: Type.Object({ data: Type.Array(Type.Object({ app: Type.String(), scopes: Type.Array(Type.String()) })) }),
          ...errorResponses,
        },
      },
    },
    async () => ({ data: (await listOAuthApps({ ctx })).map(({ app: name, scopes }) => ({ app: name, scopes })) }),
  );

  app.get(
    "/accounts/oauth/:app/start",
    {
      schema: {
        tags,
        summary: "Start connecting an account by OAuth 2: the provider URL to open (with state and a PKCE S256 challenge)",
        params: Type.Object({ app: Type.String({ minLength: 1, maxLength: 128 }) }),
        querystring: Type.Object({ name: Type.Optional(Type.String({ maxLength: 256, description: "the new account's name" })) }),
        response: { 200: Type.Object({ data: Start }), ...errorResponses },
      },
    },
    async (request) => ({
      data: await startOAuthConnect({ ctx, actor: actorOf(request), app: request.params.app, name: request.query.name }),
    }),
  );
};
