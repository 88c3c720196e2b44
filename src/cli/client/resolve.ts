// Ids or names: wherever a command takes an id, the name of a source, workflow or webhook
// works too. An id is recognised by its prefix; a name must match exactly one resource.
import type { ApiClient } from "./api-client.js";
import { CommandFailed } from "../errors.js";

export type ResourceKind = "source" | "workflow" | "webhook";

export const KIND_OF_PREFIX: Record<string, ResourceKind> = { dc: "source", p: "workflow", wh: "webhook" };
export const PATH_OF_KIND: Record<ResourceKind, string> = { source: "/sources", workflow: "/workflows", webhook: "/webhooks" };
const LIST_OF_KIND: Record<ResourceKind, string> = {
  source: "/users/me/sources",
  workflow: "/users/me/workflows",
  webhook: "/users/me/webhooks",
};

export interface Resolved {
  id: string;
  kind: ResourceKind;
}

export function kindOfId(id: string): ResourceKind | undefined {
  const match = /^([a-z]+)_[A-Za-z0-9]+$/.exec(id);
  return match ? KIND_OF_PREFIX[match[1]!] : undefined;
}

/** The resource `ref` names, among `kinds`; CommandFailed when none or several match. */
export async function resolveRef(client: ApiClient, ref: string, kinds: ResourceKind[]): Promise<Resolved> {
  const kind = kindOfId(ref);
  if (kind && kinds.includes(kind)) return { id: ref, kind };
  const matches: Array<Resolved & { name: string }> = [];
  for (const candidate of kinds) {
    const items = await client.all<{ id: string; name?: string | null; name_slug?: string }>(LIST_OF_KIND[candidate]);
    for (const item of items)
      if (item.name === ref || item.name_slug === ref) matches.push({ id: item.id, kind: candidate, name: item.name ?? "" });
  }
  if (matches.length === 1) return matches[0]!;
  const what = kinds.join(" or ");
  if (matches.length === 0) throw new CommandFailed(`no ${what} has the id or name "${ref}"`);
  throw new CommandFailed(
    `"${ref}" names ${matches.length} resources; use an id:\n${matches.map((m) => `  ${m.id}  ${m.kind}  ${m.name}`).join("\n")}`,
  );
}
