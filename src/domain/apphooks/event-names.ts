// The event names a source's apphook props take, chosen by its code: eventNames (an array, or
// a function that may read the configured props) runs in the runner like a hook, after the
// source is created or updated and activated. What it logs goes to $logs; an error, or a
// result that is not a list of names, goes to $errors, and the binding then takes no events
// until the source is saved again (a failed choice must not open the source to every event).
import type { Ctx } from "../context.js";
import { recordSourceError, runSource, type SourceDeps } from "../sources/run-source.js";
import type { RunnableSource } from "../sources/runnable-source.js";
import { APPHOOK } from "../sources/source-props.js";

export async function refreshEventNames(deps: SourceDeps, source: RunnableSource): Promise<void> {
  const props = source.metadata.configurable_props.filter((prop) => prop.type === APPHOOK).map((prop) => prop.name);
  if (props.length === 0) return;
  const result = await runSource(deps, { sourceId: source.id, entry: "eventNames", source });
  if (!result) return;
  const chosen = result.error ? undefined : result.eventNames;
  const missing = chosen ? props.filter((prop) => !Array.isArray(chosen[prop])) : [];
  if (chosen && missing.length > 0) {
    await recordSourceError(
      deps.ctx,
      source,
      { name: "ApphookError", message: `no event names came back for the apphook prop ${missing.join(", ")}`, stack: "" },
      null,
    );
  }
  for (const prop of props) await storeEventNames(deps.ctx, source.id, prop, chosen?.[prop]);
}

async function storeEventNames(ctx: Ctx, sourceId: string, prop: string, names: string[] | undefined): Promise<void> {
  await ctx.db
    .updateTable("apphook_bindings")
    .set({ event_names: Array.isArray(names) ? JSON.stringify(names) : null })
    .where("source_id", "=", sourceId)
    .where("prop_name", "=", prop)
    .execute();
}
