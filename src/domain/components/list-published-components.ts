// GET /components/registry: the published components (what each published key stands for
// now), newest first, with the registry package each came from. Read from the database on
// every call, so components another process published show at once.
import type { Ctx } from "../context.js";
import { toUnixSeconds } from "../../lib/clock.js";
import type { ComponentMetadata, PackageEntry } from "../../runtime/code-runner.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import { packageOf } from "./component.js";

export interface PublishedComponentView {
  id: string;
  key: string;
  name: string;
  version: string;
  description: string | null;
  /** "source" or "action". */
  type: string;
  /** The registry package it came from; null for components shipped as files. */
  package: PackageEntry | null;
  created_at: number;
}

export async function listPublishedComponents({ ctx, page }: { ctx: Ctx; page: PageRequest }): Promise<Page<PublishedComponentView>> {
  const query = ctx.db
    .selectFrom("registry_components")
    .innerJoin("components", "components.id", "registry_components.component_id")
    .select([
      "components.id",
      "registry_components.key",
      "components.name",
      "components.version",
      "components.metadata",
      "components.package_name",
      "components.package_version",
      "components.package_path",
      "components.created_at",
    ]);
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
        description: metadata.description ?? null,
        type: metadata.type || "source",
        package: packageOf(row) ?? null,
        created_at: toUnixSeconds(Number(row.created_at)),
      };
    }),
  };
}
