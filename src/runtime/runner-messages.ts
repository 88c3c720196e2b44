// The shapes a runner's messages must have before the pool acts on them. A runner runs user
// code, so everything it sends is hostile input: a message of the wrong shape (a forged
// `failed` without an error, an `id` that is an object, a result missing its arrays) is a
// violation that ends that runner, never an exception in the service.
import { Type, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { ChildMessage } from "../runner/protocol/messages.js";

const ErrorData = Type.Object({
  kind: Type.Optional(Type.Literal("error")),
  name: Type.String(),
  message: Type.String(),
  stack: Type.String(),
  validation: Type.Optional(Type.Boolean()),
});

/** How long a request ran, as the runner says: it only sizes the account's own batches. */
const RunMs = Type.Number({ minimum: 0, maximum: 86_400_000 });

const Envelope = Type.Union([
  Type.Object({ type: Type.Literal("ready") }),
  Type.Object({ id: Type.Integer(), type: Type.Literal("event"), event: Type.Unknown() }),
  Type.Object({
    id: Type.Integer(),
    type: Type.Literal("done"),
    result: Type.Unknown(),
    recycle: Type.Optional(Type.Boolean()),
    ms: Type.Optional(RunMs),
  }),
  Type.Object({
    id: Type.Integer(),
    type: Type.Literal("failed"),
    error: ErrorData,
    recycle: Type.Optional(Type.Boolean()),
    ms: Type.Optional(RunMs),
  }),
  Type.Object({
    id: Type.Integer(),
    type: Type.Literal("call"),
    call: Type.Integer(),
    method: Type.String({ maxLength: 128 }),
    args: Type.Unknown(),
  }),
]);

const envelope = TypeCompiler.Compile(Envelope);

/** The message as a ChildMessage, or the reason it is not one. */
export function checkRunnerMessage(message: unknown): { ok: true; message: ChildMessage } | { ok: false; reason: string } {
  if (envelope.Check(message)) return { ok: true, message: message as ChildMessage };
  const first = envelope.Errors(message).First();
  return { ok: false, reason: first ? `${first.path || "message"}: ${first.message}` : "not a runner message" };
}

/** A compiled check of one value: undefined when it conforms, else what is wrong with it. */
export type ValueCheck = (value: unknown) => string | undefined;

export function compileCheck(schema: TSchema): ValueCheck {
  const compiled = TypeCompiler.Compile(schema);
  return (value) => {
    if (compiled.Check(value)) return undefined;
    const first = compiled.Errors(value).First();
    return first ? `${first.path || "value"}: ${first.message}` : "invalid";
  };
}

export { ErrorData };
