// Making and removing what a workflow's trigger stands for: the timer or e-mail source made
// for the workflow and its subscription, or the subscription to a source of the account.
import type { Actor, Ctx } from "../../context.js";
import { invalid, ServiceError } from "../../../lib/errors.js";
import type { CodeRunner, ConfigurableProp } from "../../../runtime/code-runner.js";
import { insertSubscription } from "../../subscriptions/create-subscription.js";
import { createSource, deleteSource, findOwnedSource } from "../../sources/save-source.js";
import { timerSpecOf } from "../../sources/timer-spec.js";
import { EMAIL_TRIGGER_CODE, TIMER_TRIGGER_CODE, triggerComponent } from "./trigger-components.js";
import { HTTP_TRIGGER, type StoredTrigger, type TriggerInput } from "./trigger-spec.js";

export interface TriggerDeps {
  ctx: Ctx;
  runner: CodeRunner;
}

const TIMER_PROP = { name: "trigger", type: "$.interface.timer" } as ConfigurableProp;

function timerProps(input: Extract<TriggerInput, { type: "timer" }>) {
  const { type: _type, ...schedule } = input;
  return { timer: schedule };
}

/** Refuses, before anything is stored, a trigger that could not be made: a bad schedule, a source not the account's. */
export async function assertTriggerPossible(deps: TriggerDeps, actor: Actor, input: TriggerInput): Promise<void> {
  if (input.type === "timer") {
    try {
      timerSpecOf(TIMER_PROP, timerProps(input).timer, deps.ctx.config.minTimerSeconds);
    } catch (error) {
      if (error instanceof ServiceError) throw invalid(error.message.replace("configured_props.trigger", "trigger"));
      throw error;
    }
  }
  if (input.type === "source") await ownedSource(deps, actor, input.source_id);
}

async function ownedSource(deps: TriggerDeps, actor: Actor, sourceId: string) {
  try {
    return await findOwnedSource(deps, actor, sourceId);
  } catch (error) {
    // An unknown source is bad input to the workflow, not a missing workflow.
    if (error instanceof ServiceError && error.code === "NOT_FOUND") throw invalid(`trigger.source_id: unknown source ${sourceId}`);
    throw error;
  }
}

/** Makes what `input` stands for, for the workflow; answers what to store. */
export async function makeTrigger(
  deps: TriggerDeps,
  actor: Actor,
  workflow: { id: string; name: string },
  input: TriggerInput,
): Promise<StoredTrigger> {
  const { ctx } = deps;
  if (input.type === "http") return HTTP_TRIGGER;
  if (input.type === "source") {
    await ownedSource(deps, actor, input.source_id);
    await insertSubscription(ctx, actor.userId, input.source_id, workflow.id, "");
    return { type: "source", source_id: input.source_id };
  }
  const component = await triggerComponent({ ...deps, actor }, input.type === "timer" ? TIMER_TRIGGER_CODE : EMAIL_TRIGGER_CODE);
  const source = await createSource({
    ...deps,
    actor,
    input: {
      component_id: component.id,
      name: `${workflow.name} ${input.type} trigger`,
      configured_props: input.type === "timer" ? timerProps(input) : {},
    },
  });
  try {
    await insertSubscription(ctx, actor.userId, source.id, workflow.id, "");
    if (input.type === "timer") return { ...input, source_id: source.id };
    const row = await findOwnedSource(deps, actor, source.id);
    return { type: "email", source_id: source.id, email_key: row.email_key ?? "" };
  } catch (error) {
    // No source is left behind that nothing names.
    await deleteSource({ ...deps, actor, id: source.id }).catch(() => undefined);
    throw error;
  }
}

/** Removes what a stored trigger made (a source made for it and deleted since is no error). */
export async function removeTrigger(deps: TriggerDeps, actor: Actor, workflowId: string, stored: StoredTrigger): Promise<void> {
  if (stored.type === "http") return;
  if (stored.type === "source") {
    await deps.ctx.db
      .deleteFrom("subscriptions")
      .where("user_id", "=", actor.userId)
      .where("emitter_id", "=", stored.source_id)
      .where("listener_id", "=", workflowId)
      .execute();
    return;
  }
  await deleteSource({ ...deps, actor, id: stored.source_id }).catch((error: unknown) => {
    if (!(error instanceof ServiceError && error.code === "NOT_FOUND")) throw error;
  });
}
