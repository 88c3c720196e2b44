// GET /users/me/components: the components the account saved (POST /components, `sluice
// publish`, and those its sources were made from), newest first, without their code.
import type { Actor, Ctx } from "../context.js";
import { toUnixSeconds } from "../../lib/clock.js";
import type { ComponentMetadata } from "../../runtime/code-runner.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";

export interface OwnComponentView {
  id: string;
  key: string | null;
  name: string;
  version: string;
  type: string;
  description: string | null;
  component_url: string | null;
  created_at: number;
}

export async function listOwnComponents({
  ctx,
  actor,
  page,
}: {
  ctx: Ctx;
  actor: Actor;
  page: PageRequest;
}): Promise<Page<OwnComponentView>> {
  const query = ctx.db
    .selectFrom("components")
    .select([
      "components.id",
      "components.key",
      "components.name",
      "components.version",
      "components.metadata",
      "components.component_url",
      "components.created_at",
    ])
    .where("components.user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "components", page);
  return {
    page_info: result.page_info,
    data: result.data.map((row) => {
      const metadata = JSON.parse(row.metadata) as ComponentMetadata;
      return {
        id: row.id,
        key: row.key,
        name: row.name,
        version: row.version,
        type: metadata.type ?? "source",
        description: metadata.description ?? null,
        component_url: row.component_url,
        created_at: toUnixSeconds(Number(row.created_at)),
      };
    }),
  };
}
