import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createUser } from "../../domain/users/create-user.js";
import { ErrorBody } from "../common-schemas.js";
import type { RouteModule } from "./route-module.js";

const CreateUserBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    email: Type.String({ minLength: 3, maxLength: 320 }),
    plan: Type.Optional(Type.Union([Type.Literal("free"), Type.Literal("paid")])),
  },
  { additionalProperties: false },
);

export const adminRoutes: RouteModule = async (app, { services }) => {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/users",
    {
      schema: {
        tags: ["admin"],
        summary: "Create an account and its API key (admin token required)",
        body: CreateUserBody,
        response: { 200: Type.Object({ data: Type.Object({ id: Type.String(), username: Type.String(), email: Type.String(), plan: Type.String(), api_key: Type.String() }) }), 400: ErrorBody, 401: ErrorBody, 409: ErrorBody },
      },
    },
    async (request) => ({ data: await createUser({ ctx: services.ctx, input: request.body }) }),
  );
};
