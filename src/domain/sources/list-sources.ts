// GET /users/me/sources/: the account's sources, newest first, without user_id.
import type { Actor, Ctx } from "../context.js";
import { findComponent } from "../components/find-component.js";
import type { ComponentMetadata } from "../../runtime/contract.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import { sourceView, type SourceView } from "./source-view.js";

export async function listSources({ ctx, actor, page }: { ctx: Ctx; actor: Actor; page: PageRequest }): Promise<Page<SourceView>> {
  const query = ctx.db.selectFrom("sources").selectAll().where("sources.user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "sources", page);
  const metadata = new Map<string, ComponentMetadata>();
  for (const id of new Set(result.data.map((row) => row.component_id))) {
    metadata.set(id, (await findComponent({ ctx, actor, idOrKey: id })).metadata);
  }
  return { page_info: result.page_info, data: result.data.map((row) => sourceView(ctx, row, metadata.get(row.component_id) as ComponentMetadata, { withUserId: false })) };
}
