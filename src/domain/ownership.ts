// Which account owns an id, by its kind (lib/resource-kinds.ts). Emitters and listeners of
// subscriptions are checked here, so another account's id is "record not found" like an unknown one.
import type { Actor, Ctx } from "./context.js";
import { invalid, notFound } from "../lib/errors.js";
import { describeIdOf, EMITTER_GLOBS, EMITTER_KINDS, kindOfId, LISTENER_KINDS, oneOf, RESOURCE_KINDS } from "../lib/resource-kinds.js";

export async function isOwnedBy(ctx: Ctx, actor: Actor, id: string): Promise<boolean> {
  const kind = kindOfId(id);
  if (!kind) return false;
  const row = await ctx.db
    .selectFrom(RESOURCE_KINDS[kind].table)
    .select("id")
    .where("id", "=", id)
    .where("user_id", "=", actor.userId)
    .executeTakeFirst();
  return Boolean(row);
}

// The messages are built from the table once: "a workflow id (p_…), a source id (dc_…) or …".
const NOT_AN_EMITTER = `emitter_id must be ${oneOf([...EMITTER_KINDS.map(describeIdOf), `a glob ${EMITTER_GLOBS.join(" or ")}`])}`;
const A_GLOB_LISTENER = `listener_id must be one ${oneOf(LISTENER_KINDS.map((kind) => RESOURCE_KINDS[kind].noun))} id, not a glob`;
const NOT_A_LISTENER = `listener_id must be ${oneOf(LISTENER_KINDS.map(describeIdOf))}`;

/** An emitter is a workflow or source of the account, or one of the globs `p_*` / `dc_*`. */
export async function assertEmitter(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  if (EMITTER_GLOBS.includes(id)) return;
  const kind = kindOfId(id);
  if (!kind || !RESOURCE_KINDS[kind].emits) throw invalid(NOT_AN_EMITTER);
  if (!(await isOwnedBy(ctx, actor, id))) throw notFound();
}

/** A listener is a workflow, source or webhook of the account. */
export async function assertListener(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  if (id.includes("*")) throw invalid(A_GLOB_LISTENER);
  const kind = kindOfId(id);
  if (!kind || !RESOURCE_KINDS[kind].listens) throw invalid(NOT_A_LISTENER);
  if (!(await isOwnedBy(ctx, actor, id))) throw notFound();
}
