// The webhook resource as the API shows it, for the webhook and delivery routes.
import { Type } from "@sinclair/typebox";

export const Webhook = Type.Object({
  id: Type.String(),
  user_id: Type.Optional(Type.String()),
  name: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  url: Type.String(),
  active: Type.Boolean(),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
  signing_secret: Type.Optional(Type.String({ description: "whsec_ secret for Standard Webhooks signatures; shown at creation only" })),
});
