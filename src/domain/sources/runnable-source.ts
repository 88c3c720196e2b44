// What running a source needs (its row's settings and its component's code), cached in
// memory because the HTTP ingest path is hot (the cache is the context's, runnable-source-cache.ts).
// Updates and deletes in this process drop the entry at once; entries also expire after a
// short time so other processes' changes show.
import type { Ctx } from "../context.js";
import type { SavedComponent } from "../components/component.js";
import { findComponent } from "../components/find-component.js";
import { withAppAuth } from "../accounts/app-props.js";
import { DB, DIR, resolveProps } from "./source-props.js";
import type { RunnableSource } from "./runnable-source-cache.js";
import { DATA_STORE } from "../data-stores/data-store-props.js";
import { intervalSecondsOf } from "./timer-spec.js";
import { parseDynamicProps, withDynamicProps } from "./dynamic-props.js";

export type { RunnableSource };

const TTL_MS = 2000;

const MAX_COMPONENTS = 1000;

async function componentOf(ctx: Ctx, userId: string, componentId: string): Promise<SavedComponent> {
  const { components } = ctx.runnableSources;
  const cached = components.get(componentId);
  if (cached && (cached.userId === null || cached.userId === userId)) return cached;
  const component = await findComponent({ ctx, actor: { userId }, idOrKey: componentId });
  if (components.size >= MAX_COMPONENTS) components.clear();
  components.set(componentId, component);
  return component;
}

export function forgetSource(ctx: Ctx, id: string): void {
  const { byId, idByEndpoint } = ctx.runnableSources;
  const cached = byId.get(id);
  if (cached?.endpointKey) idByEndpoint.delete(cached.endpointKey);
  byId.delete(id);
}

const fresh = (entry: RunnableSource | undefined) => entry && performance.now() - entry.loadedAt < TTL_MS;

export async function runnableSource(ctx: Ctx, id: string): Promise<RunnableSource | undefined> {
  const cached = ctx.runnableSources.byId.get(id);
  if (fresh(cached)) return cached;
  const row = await ctx.db
    .selectFrom("sources")
    .select([
      "id",
      "user_id",
      "active",
      "endpoint_key",
      "custom_response",
      "component_id",
      "configured_props",
      "timer_interval_seconds",
      "timer_cron",
      "dynamic_props",
    ])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) {
    forgetSource(ctx, id);
    return undefined;
  }
  const saved = await componentOf(ctx, row.user_id, row.component_id);
  const extraProps = parseDynamicProps(row.dynamic_props);
  const component = { ...saved, metadata: withDynamicProps(saved.metadata, row.dynamic_props) };
  let props: Record<string, unknown> = {};
  try {
    props = resolveProps(component.metadata, JSON.parse(row.configured_props), 0).values;
  } catch {
    // Checked when the source was saved; a component changed since runs with what resolves.
  }
  const withAuth = await withAppAuth(ctx, row.user_id, component.metadata, props);
  const entry: RunnableSource = {
    id: row.id,
    userId: row.user_id,
    active: Number(row.active) === 1,
    endpointKey: row.endpoint_key,
    customResponse: Number(row.custom_response) === 1,
    code: component.code,
    codeUrl: component.componentUrl ?? undefined,
    files: component.files,
    package: component.package,
    metadata: component.metadata,
    extraProps,
    props: withAuth.props,
    oauthProps: withAuth.oauthProps,
    usesDb: component.metadata.configurable_props.some((prop) => prop.type === DB),
    usesDir: component.metadata.configurable_props.some((prop) => prop.type === DIR),
    usesDataStore: component.metadata.configurable_props.some((prop) => prop.type === DATA_STORE),
    intervalSeconds:
      row.timer_cron || row.timer_interval_seconds !== null
        ? intervalSecondsOf({ intervalSeconds: row.timer_interval_seconds, cron: row.timer_cron })
        : null,
    loadedAt: performance.now(),
  };
  forgetSource(ctx, id);
  ctx.runnableSources.byId.set(id, entry);
  if (entry.endpointKey) ctx.runnableSources.idByEndpoint.set(entry.endpointKey, id);
  return entry;
}

export async function runnableByEndpoint(ctx: Ctx, endpointKey: string): Promise<RunnableSource | undefined> {
  const knownId = ctx.runnableSources.idByEndpoint.get(endpointKey);
  if (knownId) {
    const entry = await runnableSource(ctx, knownId);
    if (entry?.endpointKey === endpointKey) return entry;
  }
  const row = await ctx.db.selectFrom("sources").select("id").where("endpoint_key", "=", endpointKey).executeTakeFirst();
  return row ? runnableSource(ctx, row.id) : undefined;
}

export const endpointUrl = (ctx: Ctx, key: string | null): string | null => (key ? `${ctx.config.publicUrl}/e/${key}` : null);
