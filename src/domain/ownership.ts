// Which account owns an id, by its prefix. Emitters and listeners of subscriptions are
// checked here, so another account's id is "record not found" like an unknown one.
import type { Actor, Ctx } from "./context.js";
import { invalid, notFound } from "../lib/errors.js";
import { idPrefix } from "../lib/ids.js";

export async function isOwnedBy(ctx: Ctx, actor: Actor, id: string): Promise<boolean> {
  const table = ctx.resourceKinds.get(idPrefix(id) ?? "");
  if (!table) return false;
  const row = await (ctx.db as any)
    .selectFrom(table)
    .select("id")
    .where("id", "=", id)
    .where("user_id", "=", actor.userId)
    .executeTakeFirst();
  return Boolean(row);
}

export const EMITTER_GLOBS = ["p_*", "dc_*"] as const;
const EMITTER_PREFIXES = ["p", "dc"];
const LISTENER_PREFIXES = ["p", "dc", "wh"];

/** An emitter is a workflow or source of the account, or one of the globs `p_*` / `dc_*`. */
export async function assertEmitter(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  if ((EMITTER_GLOBS as readonly string[]).includes(id)) return;
  if (!EMITTER_PREFIXES.includes(idPrefix(id) ?? "")) {
    throw invalid("emitter_id must be a workflow id (p_…), a source id (dc_…) or a glob p_* or dc_*");
  }
  if (!(await isOwnedBy(ctx, actor, id))) throw notFound();
}

/** A listener is a workflow, source or webhook of the account. */
export async function assertListener(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  if (id.includes("*")) throw invalid("listener_id must be one workflow, source or webhook id, not a glob");
  if (!LISTENER_PREFIXES.includes(idPrefix(id) ?? "")) {
    throw invalid("listener_id must be a workflow id (p_…), a source id (dc_…) or a webhook id (wh_…)");
  }
  if (!(await isOwnedBy(ctx, actor, id))) throw notFound();
}
