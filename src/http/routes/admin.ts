import { Type } from "@sinclair/typebox";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { addPackage } from "../../domain/registry/add-registry-package.js";
import { packageRequest } from "../../domain/registry/package-request.js";
import { listRegistryPackages, removeRegistryPackage } from "../../domain/registry/manage-registry-packages.js";
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

const AddPackageBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 214, description: "an npm package name, e.g. @pipedream/slack" }),
    version: Type.Optional(
      Type.Union([
        Type.String({
          maxLength: 64,
          description: "a version, range or tag; the latest version when absent (pinned to the exact version it resolves to)",
        }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

const RegistryPackage = Type.Object({
  name: Type.String(),
  version: Type.String({ description: "the exact version every host installs" }),
  added_at: Type.Integer(),
  updated_at: Type.Integer(),
  keys: Type.Array(Type.String(), { description: "the published keys of its sources" }),
});

const AddedPackage = Type.Composite([
  RegistryPackage,
  Type.Object({
    skipped: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() }), {
      description: "files under sources/ not published, and why",
    }),
  }),
]);

export const adminRoutes: RouteModule = async (scope, { services }) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const registryDeps = { ctx: services.ctx, runner: services.runner };

  app.post(
    "/registry/packages",
    {
      schema: {
        tags: ["admin"],
        summary:
          "Add an npm package in the shape of @pipedream/<app> to the registry: install it, publish its sources (admin token required)",
        body: AddPackageBody,
        response: { 200: Type.Object({ data: AddedPackage }), 400: ErrorBody, 401: ErrorBody, 413: ErrorBody },
      },
    },
    async (request) => ({ data: await addPackage(registryDeps, packageRequest(request.body)) }),
  );

  app.get(
    "/registry/packages",
    {
      schema: {
        tags: ["admin"],
        summary: "List the registry packages (admin token required)",
        response: { 200: Type.Object({ data: Type.Array(RegistryPackage) }), 401: ErrorBody },
      },
    },
    async () => ({ data: await listRegistryPackages({ ctx: services.ctx }) }),
  );

  app.delete(
    "/registry/packages/*",
    {
      schema: {
        tags: ["admin"],
        summary: "Remove a registry package: its keys leave the registry; sources deployed from it keep running (admin token required)",
        params: Type.Object({ "*": Type.String({ minLength: 1, maxLength: 214 }) }),
        response: { 204: Type.Null(), 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await removeRegistryPackage({ ctx: services.ctx, name: request.params["*"] });
      return reply.status(204).send(null);
    },
  );

  app.post(
    "/users",
    {
      schema: {
        tags: ["admin"],
        summary: "Create an account and its API key (admin token required)",
        body: CreateUserBody,
        response: {
          200: Type.Object({
            data: Type.Object({
              id: Type.String(),
              username: Type.String(),
              email: Type.String(),
              plan: Type.String(),
              api_key: Type.String(),
            }),
          }),
          400: ErrorBody,
          401: ErrorBody,
          409: ErrorBody,
        },
      },
    },
    async (request) => ({ data: await createUser({ ctx: services.ctx, input: request.body }) }),
  );
};
