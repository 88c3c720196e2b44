// POST /sources/ and PUT /sources/{id}: create runs deploy then activate; update runs
// deactivate with the old code, swaps code and props (same dc_ id), then activate. An active
// source with apphook props then has its eventNames() chosen (apphooks/event-names.ts).
import type { Actor } from "../context.js";
import { applyAutoSubscriptions } from "../subscriptions/auto-subscriptions.js";
import type { SavedComponent } from "../components/component.js";
import { invalid, notFound } from "../../lib/errors.js";
import { newId, newUrlKey } from "../../lib/ids.js";
import type { SourcesTable } from "../../store/schema.js";
import { runHooks } from "./lifecycle.js";
import type { SourceDeps } from "./run-source.js";
import { forgetSource, runnableSource } from "./runnable-source.js";
import { componentForSource, type ComponentChoice } from "./source-component.js";
import { checkDataStoreProps } from "../data-stores/data-store-props.js";
import { resolveProps, slugify } from "./source-props.js";
import { removeSourceFiles } from "./source-files.js";
import { sourceView, type SourceView } from "./source-view.js";
import { nextRunAfter } from "./timer-spec.js";
import { deleteEmitterEvents } from "../events/delete-events.js";
import { deleteInlineAccounts, storeAppProps } from "../accounts/app-props.js";
import { apphookBindings, deleteApphookBindings, saveApphookBindings } from "../apphooks/apphook-bindings.js";
import { refreshEventNames } from "../apphooks/event-names.js";
import { assertNameFree, unusedName } from "../unused-name.js";
import { dynamicPropsFor, withDynamicProps } from "./dynamic-props.js";

export interface SaveSourceInput extends ComponentChoice {
  name?: string;
  configured_props?: Record<string, unknown>;
  active?: boolean;
}

function checkConfiguredProps(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid("configured_props must be an object");
  return value as Record<string, unknown>;
}

/** The columns that follow from a component and its configured props. */
function derivedColumns(
  deps: SourceDeps,
  component: SavedComponent & { dynamicProps: string | null },
  configured: Record<string, unknown>,
  active: boolean,
  keys: { endpoint: string | null; email: string | null },
) {
  const { ctx } = deps;
  const resolved = resolveProps(component.metadata, configured, ctx.config.minTimerSeconds);
  // component.metadata holds the source's dynamic props too (withSourceProps).
  const now = ctx.clock.now();
  return {
    component_id: component.id,
    configured_props: JSON.stringify(configured),
    dynamic_props: component.dynamicProps,
    active: active ? 1 : 0,
    endpoint_key: resolved.http ? (keys.endpoint ?? newUrlKey()) : null,
    email_key: resolved.email ? (keys.email ?? newUrlKey()) : null,
    custom_response: resolved.http?.customResponse ? 1 : 0,
    timer_interval_seconds: resolved.timer?.intervalSeconds ?? null,
    timer_cron: resolved.timer?.cron ?? null,
    next_run_at: resolved.timer && active ? nextRunAfter(resolved.timer, now) : null,
    updated_at: now,
  };
}

export async function createSource(deps: SourceDeps & { actor: Actor; input: SaveSourceInput }): Promise<SourceView> {
  const { ctx, actor, input } = deps;
  const saved = await componentForSource(ctx, deps.runner, actor, input);
  const configured = checkConfiguredProps(input.configured_props);
  const component = withSourceProps(saved, await dynamicPropsFor(deps, actor, saved, configured));
  await checkDataStoreProps(ctx, { userId: actor.userId, props: component.metadata.configurable_props, configured });
  const name = input.name?.trim() || slugify(component.name);
  const id = newId("dc");
  const row: SourcesTable = {
    id,
    user_id: actor.userId,
    name,
    name_slug: slugify(name),
    state: "{}",
    dedupe_state: "{}",
    run_lock_until: null,
    created_at: ctx.clock.now(),
    ...derivedColumns(deps, component, configured, true, { endpoint: null, email: null }),
  };
  await ctx.db.transaction().execute(async (tx) => {
    row.name = await unusedName(tx, "sources", actor.userId, name);
    row.name_slug = slugify(row.name);
    const stored = await storeAppProps(
      { ...ctx, db: tx },
      { userId: actor.userId, sourceId: id, metadata: component.metadata, configured },
    );
    const bindings = apphookBindings(component.metadata, stored);
    row.configured_props = JSON.stringify(stored);
    await tx.insertInto("sources").values(row).execute();
    await saveApphookBindings(tx, { sourceId: id, bindings });
    await applyAutoSubscriptions({ ...ctx, db: tx }, actor.userId, row.id);
  });
  const runnable = await runnableSource(ctx, row.id);
  if (runnable) {
    await runHooks(deps, runnable, ["deploy", "activate"]);
    await refreshEventNames(deps, runnable);
  }
  return sourceView(ctx, row, component.metadata, { withUserId: true });
}

export async function findOwnedSource(deps: Pick<SourceDeps, "ctx">, actor: Actor, id: string): Promise<SourcesTable> {
  const row = await deps.ctx.db
    .selectFrom("sources")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", actor.userId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function updateSource(deps: SourceDeps & { actor: Actor; id: string; input: SaveSourceInput }): Promise<SourceView> {
  const { ctx, actor, id, input } = deps;
  const current = await findOwnedSource(deps, actor, id);
  const saved = await componentForSource(ctx, deps.runner, actor, input);
  const configured =
    input.configured_props === undefined ? JSON.parse(current.configured_props) : checkConfiguredProps(input.configured_props);
  const previous = {
    componentId: current.component_id,
    configured: JSON.parse(current.configured_props),
    dynamicProps: current.dynamic_props,
  };
  const component = withSourceProps(saved, await dynamicPropsFor(deps, actor, saved, configured, previous));
  // Props kept as they were are not checked again: a store deleted since must not block a change of name or state.
  if (input.configured_props !== undefined)
    await checkDataStoreProps(ctx, { userId: actor.userId, props: component.metadata.configurable_props, configured });
  const active = input.active ?? true;
  const columns = derivedColumns(deps, component, configured, active, { endpoint: current.endpoint_key, email: current.email_key });
  // New props may hold inline credentials: stored as connected accounts, replaced by their ids.
  const stored =
    input.configured_props === undefined
      ? configured
      : await storeAppProps(ctx, { userId: actor.userId, sourceId: id, metadata: component.metadata, configured });
  if (stored !== configured) columns.configured_props = JSON.stringify(stored);
  const bindings = apphookBindings(component.metadata, stored);
  const name = input.name?.trim() || current.name;
  if (name !== current.name) await assertNameFree(ctx.db, "sources", actor.userId, name, id);
  const old = await runnableSource(ctx, id);
  if (old && Number(current.active) === 1) await runHooks(deps, old, ["deactivate"]);
  const next: SourcesTable = { ...current, ...columns, name, name_slug: slugify(name) };
  await ctx.db.transaction().execute(async (tx) => {
    await tx
      .updateTable("sources")
      .set({ ...columns, name: next.name, name_slug: next.name_slug })
      .where("id", "=", id)
      .execute();
    await saveApphookBindings(tx, { sourceId: id, bindings });
  });
  forgetSource(ctx, id);
  if (active) {
    const fresh = await runnableSource(ctx, id);
    if (fresh) {
      await runHooks(deps, fresh, ["activate"]);
      await refreshEventNames(deps, fresh);
    }
  }
  return sourceView(ctx, next, component.metadata, { withUserId: true });
}

/** The component as this source sees it: its own props and those its additionalProps() added. */
function withSourceProps(component: SavedComponent, dynamicProps: string | null): SavedComponent & { dynamicProps: string | null } {
  return { ...component, metadata: withDynamicProps(component.metadata, dynamicProps), dynamicProps };
}

/** Runs deactivate, then removes the source, its events and the subscriptions to and from it. */
export async function deleteSource(deps: SourceDeps & { actor: Actor; id: string }): Promise<void> {
  const { ctx, actor, id } = deps;
  const current = await findOwnedSource(deps, actor, id);
  const runnable = await runnableSource(ctx, id);
  if (runnable && Number(current.active) === 1) await runHooks(deps, runnable, ["deactivate"]);
  await ctx.db.transaction().execute(async (tx) => {
    await tx.deleteFrom("sources").where("id", "=", id).where("user_id", "=", actor.userId).execute();
    await tx
      .deleteFrom("subscriptions")
      .where("user_id", "=", actor.userId)
      .where((eb) => eb.or([eb("emitter_id", "=", id), eb("listener_id", "=", id)]))
      .execute();
    await tx.deleteFrom("auto_subscriptions").where("user_id", "=", actor.userId).where("listener_id", "=", id).execute();
    await deleteEmitterEvents(ctx.summaryPages, tx, id);
    await deleteApphookBindings(tx, id);
    await deleteInlineAccounts({ db: tx }, actor.userId, [id]);
  });
  forgetSource(ctx, id);
  await removeSourceFiles(ctx, id);
}
