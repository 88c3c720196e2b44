// GET /users/me/sources/: the account's sources, newest first, without user_id.
import type { Actor, Ctx } from "../context.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import { sourceView, type SourceView } from "./source-view.js";

export async function listSources({ ctx, actor, page }: { ctx: Ctx; actor: Actor; page: PageRequest }): Promise<Page<SourceView>> {
  const query = ctx.db.selectFrom("sources").selectAll().where("sources.user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "sources", page);
  // The page's components in one query (a source's component is the account's or published).
  const componentIds = [...new Set(result.data.map((row) => row.component_id))];
  const components =
    componentIds.length === 0
      ? []
      : await ctx.db
          .selectFrom("components")
          .select(["id", "metadata"])
          .where("id", "in", componentIds)
          .where((eb) => eb.or([eb("user_id", "=", actor.userId), eb("user_id", "is", null)]))
          .execute();
  const metadata = new Map(components.map((row) => [row.id, JSON.parse(row.metadata) as ComponentMetadata]));
  return {
    page_info: result.page_info,
    data: result.data.map((row) => sourceView(ctx, row, metadata.get(row.component_id) as ComponentMetadata, { withUserId: false })),
  };
}
