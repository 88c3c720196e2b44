// What starts a workflow (POST|PUT /v1/workflows `trigger`), and how a workflow shows it.
import { Type } from "@sinclair/typebox";

const Cron = Type.String({ minLength: 1, maxLength: 200, description: "a cron schedule (5 or 6 fields)" });
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: "an IANA time zone for the cron schedule; UTC when absent" });

// One object rather than a union per type, so a 400 names the field that is wrong
// (the domain checks which fields go with which type: triggers/trigger-spec.ts).
export const TriggerInput = Type.Object(
  {
    type: Type.Union([Type.Literal("http"), Type.Literal("timer"), Type.Literal("source"), Type.Literal("email")], {
      description:
        "http: the workflow's endpoint_url (the default); timer: a schedule; source: each event of a source; email: each message sent to email_address",
    }),
    cron: Type.Optional(Cron),
    intervalSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    timezone: Type.Optional(Timezone),
    source_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "the source of a source trigger" })),
  },
  { additionalProperties: false, description: "what starts the workflow" },
);

export const Trigger = Type.Object({
  type: Type.Union([Type.Literal("http"), Type.Literal("timer"), Type.Literal("source"), Type.Literal("email")]),
  endpoint_url: Type.Optional(Type.String()),
  cron: Type.Optional(Type.String()),
  intervalSeconds: Type.Optional(Type.Integer()),
  timezone: Type.Optional(Type.String()),
  source_id: Type.Optional(Type.String({ description: "the source that runs the workflow (made for a timer or e-mail trigger)" })),
  email_address: Type.Optional(Type.String()),
});
