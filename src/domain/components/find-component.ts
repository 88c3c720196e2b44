import type { Actor, Ctx } from "../context.js";
import { notFound } from "../../lib/errors.js";
import type { ComponentsTable } from "../../store/schema.js";
import { componentFromRow, type SavedComponent } from "./component.js";

/**
 * A component of the account by `sc_` id or by key (the latest saved for that key). Published
 * registry components are found too, since they are available to every account. Another
 * account's component is "record not found", like an unknown one.
 */
export async function findComponent({ ctx, actor, idOrKey }: { ctx: Ctx; actor: Actor; idOrKey: string }): Promise<SavedComponent> {
  const row = await ownOrPublished(ctx, actor, idOrKey);
  if (row) return componentFromRow(row);
  return findPublishedComponent({ ctx, key: idOrKey });
}

async function ownOrPublished(ctx: Ctx, actor: Actor, idOrKey: string): Promise<ComponentsTable | undefined> {
  if (idOrKey.startsWith("sc_")) {
    const byId = await ctx.db
      .selectFrom("components")
      .selectAll()
      .where("id", "=", idOrKey)
      .where((eb) => eb.or([eb("user_id", "=", actor.userId), eb("user_id", "is", null)]))
      .executeTakeFirst();
    if (byId) return byId;
  }
  return ctx.db
    .selectFrom("components")
    .selectAll()
    .where("user_id", "=", actor.userId)
    .where("key", "=", idOrKey)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The component a published key stands for now (GET /components/registry/{key}). */
export async function findPublishedComponent({ ctx, key }: { ctx: Ctx; key: string }): Promise<SavedComponent> {
  const row = await ctx.db
    .selectFrom("registry_components")
    .innerJoin("components", "components.id", "registry_components.component_id")
    .selectAll("components")
    .where("registry_components.key", "=", key)
    .executeTakeFirst();
  if (!row) throw notFound();
  return componentFromRow(row);
}
