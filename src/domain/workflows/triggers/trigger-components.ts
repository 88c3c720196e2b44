// The components of the sources a timer or e-mail trigger stands for, as Pipedream's trigger
// step does: a timer component that emits each timer event as it is, and an e-mail component
// (the `email` app prop of Pipedream's `email-new-email`) whose messages the service emits.
// Each is saved once per account (found again by its code's hash), so the account's sources
// name a component it can read, like any other.
import type { Actor, Ctx } from "../../context.js";
import { codeHash, componentFromRow, type SavedComponent } from "../../components/component.js";
import { saveComponent } from "../../components/save-component.js";
import type { CodeRunner } from "../../../runtime/code-runner.js";

export const TIMER_TRIGGER_CODE = `// Emits each timer event to the workflow that made it its trigger.
export default {
  key: "workflow-timer-trigger",
  name: "Workflow timer trigger",
  version: "1.0.0",
  description: "Runs a workflow on an interval or a cron schedule.",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } } },
};
`;

export const EMAIL_TRIGGER_CODE = `// Emits each message sent to its address to the workflow that made it its trigger.
export default {
  key: "workflow-email-trigger",
  name: "Workflow e-mail trigger",
  version: "1.0.0",
  description: "Runs a workflow on every e-mail sent to its address.",
  props: { email: { type: "app", app: "email" } },
};
`;

export async function triggerComponent(
  { ctx, runner, actor }: { ctx: Ctx; runner: CodeRunner; actor: Actor },
  code: string,
): Promise<SavedComponent> {
  const saved = await ctx.db
    .selectFrom("components")
    .selectAll()
    .where("user_id", "=", actor.userId)
    .where("code_hash", "=", codeHash(code))
    .orderBy("created_at", "asc")
    .limit(1)
    .executeTakeFirst();
  if (saved) return componentFromRow(saved);
  return saveComponent({ ctx, runner, actor, input: { code } });
}
