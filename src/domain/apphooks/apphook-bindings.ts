// A source's `$.interface.apphook` props, each bound to the connected account its app prop
// (`appProp`) names, so that events posted to that account's inbound URL run the source. The
// bindings are written in the transaction that saves the source and go with it; the event
// names each binding takes are filled in once the source's eventNames() ran (event-names.ts).
import type { Kysely } from "kysely";
import { invalid } from "../../lib/errors.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import type { Database } from "../../store/schema.js";
import { APPHOOK } from "../sources/source-props.js";

export interface ApphookBinding {
  prop: string;
  accountId: string;
}

/**
 * The bindings of a source with these stored configured_props (app props as
 * {authProvisionId}); a 400 when an apphook names no app prop of the component, or its app
 * prop has no connected account.
 */
export function apphookBindings(metadata: ComponentMetadata, stored: Record<string, unknown>): ApphookBinding[] {
  const bindings: ApphookBinding[] = [];
  for (const prop of metadata.configurable_props) {
    if (prop.type !== APPHOOK) continue;
    const appProp = prop.appProp;
    if (typeof appProp !== "string" || appProp === "")
      throw invalid(`the apphook prop "${prop.name}" must name the component's app prop it follows (appProp)`);
    const app = metadata.configurable_props.find((candidate) => candidate.name === appProp && candidate.type === "app");
    if (!app) throw invalid(`the apphook prop "${prop.name}" names the app prop "${appProp}", which the component does not have`);
    const accountId = (stored[appProp] as { authProvisionId?: unknown } | undefined)?.authProvisionId;
    if (typeof accountId !== "string")
      throw invalid(
        `configured_props.${appProp} is required: the apphook prop "${prop.name}" receives the events of its connected account`,
      );
    bindings.push({ prop: prop.name, accountId });
  }
  return bindings;
}

/**
 * Replaces a source's bindings. A prop bound before keeps the event names it had until the
 * source's eventNames() runs again, so an update does not drop events meanwhile.
 */
export async function saveApphookBindings(db: Kysely<Database>, input: { sourceId: string; bindings: ApphookBinding[] }): Promise<void> {
  const props = input.bindings.map((binding) => binding.prop);
  let unbound = db.deleteFrom("apphook_bindings").where("source_id", "=", input.sourceId);
  if (props.length > 0) unbound = unbound.where("prop_name", "not in", props);
  await unbound.execute();
  if (props.length === 0) return;
  await db
    .insertInto("apphook_bindings")
    .values(
      input.bindings.map((binding) => ({
        source_id: input.sourceId,
        prop_name: binding.prop,
        account_id: binding.accountId,
        event_names: null,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(["source_id", "prop_name"]).doUpdateSet((eb) => ({ account_id: eb.ref("excluded.account_id") })),
    )
    .execute();
}

export async function deleteApphookBindings(db: Kysely<Database>, sourceId: string): Promise<void> {
  await db.deleteFrom("apphook_bindings").where("source_id", "=", sourceId).execute();
}
