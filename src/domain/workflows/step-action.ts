// The component an action step runs: by key, the account's own component of that key (saved
// with POST /v1/components or `sluice publish`), else the registry's, at the version asked for
// (the newest recorded when none is); or a component the account saved, by sc_ id. It must be
// of type "action"; a source is refused, since it is run by events, not as a step.
import type { Actor, Ctx } from "../context.js";
import { invalid, ServiceError } from "../../lib/errors.js";
import { componentFromRow, type SavedComponent } from "../components/component.js";
import { findComponent, findPublishedComponent } from "../components/find-component.js";

export async function actionComponent(
  ctx: Ctx,
  actor: Actor,
  step: { action?: string; component_id?: string; version?: string },
  where: string,
): Promise<SavedComponent> {
  const component = step.component_id
    ? await ownComponent(ctx, actor, step.component_id, where)
    : ((await ownByKey(ctx, actor, step.action ?? "", step.version)) ??
      (await publishedAction(ctx, step.action ?? "", step.version, where)));
  const type = component.metadata.type ?? "source";
  if (type !== "action") throw invalid(`${where}: component ${component.key ?? component.id} is of type "${type}", not an action`);
  return component;
}

async function ownComponent(ctx: Ctx, actor: Actor, id: string, where: string): Promise<SavedComponent> {
  try {
    const component = await findComponent({ ctx, actor, idOrKey: id });
    if (component.id === id) return component;
  } catch (error) {
    if (!(error instanceof ServiceError && error.code === "NOT_FOUND")) throw error;
  }
  throw invalid(`${where}: component_id names no component of this account: ${id}`);
}

/** The newest component the account saved under this key (and version, when one is asked for). */
async function ownByKey(ctx: Ctx, actor: Actor, key: string, version: string | undefined): Promise<SavedComponent | undefined> {
  let query = ctx.db.selectFrom("components").selectAll().where("user_id", "=", actor.userId).where("key", "=", key);
  if (version !== undefined) query = query.where("version", "=", version);
  const row = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(1).executeTakeFirst();
  return row ? componentFromRow(row) : undefined;
}

async function publishedAction(ctx: Ctx, key: string, version: string | undefined, where: string): Promise<SavedComponent> {
  if (version === undefined) {
    try {
      return await findPublishedComponent({ ctx, key });
    } catch (error) {
      if (error instanceof ServiceError && error.code === "NOT_FOUND") throw invalid(`${where}: no published action "${key}"`);
      throw error;
    }
  }
  // Earlier versions stay recorded as components of the registry (user_id NULL) after a newer one is published.
  const row = await ctx.db
    .selectFrom("components")
    .selectAll()
    .where("user_id", "is", null)
    .where("key", "=", key)
    .where("version", "=", version)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!row) throw invalid(`${where}: no published action "${key}" at version ${version}`);
  return componentFromRow(row);
}

/** The module of a stored action step, by the component chosen when it was saved. */
export async function storedActionComponent(ctx: Ctx, userId: string, componentRef: string): Promise<SavedComponent | undefined> {
  const row = await ctx.db
    .selectFrom("components")
    .selectAll()
    .where("id", "=", componentRef)
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("user_id", "is", null)]))
    .executeTakeFirst();
  return row ? componentFromRow(row) : undefined;
}
