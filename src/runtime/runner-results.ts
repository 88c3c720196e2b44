// What each kind of request may answer, checked before the service uses it (the runner is
// hostile: see runner-messages.ts). One check per request type of the child's handler table.
import { Type } from "@sinclair/typebox";
import { compileCheck, ErrorData, type ValueCheck } from "./runner-messages.js";
import { MAX_EVENT_NAME_LENGTH, MAX_EVENT_NAMES } from "../runner/protocol/component-execution.js";

const Log = Type.Object({
  level: Type.Union([Type.Literal("log"), Type.Literal("info"), Type.Literal("warn"), Type.Literal("error")]),
  message: Type.String(),
  ts: Type.Number(),
});

/** A custom HTTP answer: a final status only (1xx would leave the client waiting for another). */
export const ResponseRecord = Type.Object({
  status: Type.Integer({ minimum: 200, maximum: 599 }),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.Union([
    Type.Object({ kind: Type.Literal("none") }),
    Type.Object({ kind: Type.Literal("text"), text: Type.String() }),
    Type.Object({ kind: Type.Literal("json"), value: Type.Unknown() }),
    Type.Object({ kind: Type.Literal("base64"), data: Type.String() }),
  ]),
});

const Emit = Type.Object({
  event: Type.Unknown(),
  meta: Type.Object({
    id: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    name: Type.Optional(Type.String({ minLength: 1 })),
    summary: Type.Optional(Type.String()),
    ts: Type.Optional(Type.Number()),
  }),
});

const ExecuteResult = Type.Object({
  emits: Type.Array(Emit),
  logs: Type.Array(Log),
  state: Type.Record(Type.String(), Type.Unknown()),
  response: Type.Optional(ResponseRecord),
  dir: Type.Optional(Type.Object({ written: Type.Record(Type.String(), Type.String()), deleted: Type.Array(Type.String()) })),
  eventNames: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.String({ maxLength: MAX_EVENT_NAME_LENGTH }), { maxItems: MAX_EVENT_NAMES })),
  ),
  error: Type.Optional(ErrorData),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const InspectResult = Type.Object({
  key: Nullable(Type.String()),
  name: Type.String(),
  version: Type.String(),
  description: Nullable(Type.String()),
  type: Type.String(),
  dedupe: Nullable(Type.Union([Type.Literal("unique"), Type.Literal("greatest"), Type.Literal("last")])),
  configurable_props: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
  hooks: Type.Array(Type.Union([Type.Literal("deploy"), Type.Literal("activate"), Type.Literal("deactivate")])),
});

const StepProblems = Type.Array(Type.Object({ stepId: Type.String(), stepName: Type.String(), message: Type.String() }));
const StepsCheck = Type.Object({
  problems: StepProblems,
  props: Type.Record(Type.String(), Type.Array(Type.Object({ name: Type.String(), type: Type.String() }))),
  dynamic: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 })),
});

const FlowRequest = Type.Union([
  Type.Object({ kind: Type.Literal("exit"), reason: Type.String() }),
  Type.Object({ kind: Type.Literal("delay"), ms: Type.Number() }),
  Type.Object({ kind: Type.Literal("suspend"), timeoutMs: Type.Number() }),
  Type.Object({ kind: Type.Literal("rerun"), delayMs: Type.Number(), context: Type.Unknown(), maxReruns: Type.Integer() }),
]);

const WorkflowStepResult = Type.Object({
  emits: Type.Array(Type.Unknown()),
  emails: Type.Array(Type.Object({ subject: Type.String(), text: Type.String() })),
  httpRequests: Type.Optional(
    Type.Array(
      Type.Object({
        method: Type.String(),
        url: Type.String(),
        headers: Type.Record(Type.String(), Type.String()),
        body: Type.Union([Type.String(), Type.Null()]),
      }),
      { maxItems: 10 },
    ),
  ),
  response: Type.Optional(ResponseRecord),
  returnValue: Type.Optional(Type.Unknown()),
  exports: Type.Record(Type.String(), Type.Unknown()),
  flow: Type.Optional(FlowRequest),
  error: Type.Optional(ErrorData),
  logs: Type.Array(Log),
});

/** Events a runner may send while a request runs: an early HTTP answer. */
const RunEvent = Type.Object({ response: Type.Optional(ResponseRecord) });

const ConfigurableProps = Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), type: Type.String() }));

const PropOptionsResult = Type.Union([
  Type.Object({ options: Type.Array(Type.Unknown()), context: Type.Unknown() }),
  Type.Object({ problem: Type.Union([Type.Literal("unknown-prop"), Type.Literal("no-options")]) }),
]);

export const checkRunEvent: ValueCheck = compileCheck(RunEvent);

export const resultChecks: Record<string, ValueCheck> = {
  execute: compileCheck(ExecuteResult),
  inspect: compileCheck(InspectResult),
  "props.reload": compileCheck(ConfigurableProps),
  "props.options": compileCheck(PropOptionsResult),
  "workflow.check": compileCheck(StepsCheck),
  "workflow.step": compileCheck(WorkflowStepResult),
};
