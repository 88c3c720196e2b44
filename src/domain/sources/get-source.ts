// GET /sources/{id} (beyond the spec): one source of the account, with user_id.
import type { Actor, Ctx } from "../context.js";
import { findComponent } from "../components/find-component.js";
import { findOwnedSource } from "./save-source.js";
import { sourceView, type SourceView } from "./source-view.js";

export async function getSource({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<SourceView> {
  const row = await findOwnedSource({ ctx }, actor, id);
  const component = await findComponent({ ctx, actor, idOrKey: row.component_id });
  return sourceView(ctx, row, component.metadata, { withUserId: true });
}
