// GET /components/registry: the published components (what each published key stands for
// now), newest first, with their type and props and the registry package each came from;
// `type` keeps only sources or only actions. Read from the database on
// every call, so components another process published show at once.
import type { Ctx } from "../context.js";
import { toUnixSeconds } from "../../lib/clock.js";
import type { ComponentMetadata, ConfigurableProp, PackageEntry } from "../../runtime/code-runner.js";
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
  configurable_props: ConfigurableProp[];
  /** The registry package it came from; null for components shipped as files. */
  package: PackageEntry | null;
  created_at: number;
}

export async function listPublishedComponents({
  ctx,
  page,
  type,
}: {
  ctx: Ctx;
  page: PageRequest;
  type?: "source" | "action";
}): Promise<Page<PublishedComponentView>> {
  let query = ctx.db
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
  // The metadata is the JSON inspect produced, where the component's own type is the only
  // "type" that can be "source" or "action" (props' types never are); one is absent only as a source.
  if (type === "action") query = query.where("components.metadata", "like", '%"type":"action"%');
  if (type === "source") query = query.where("components.metadata", "not like", '%"type":"action"%');
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
        type: metadata.type ?? "source",
        configurable_props: metadata.configurable_props ?? [],
        package: packageOf(row) ?? null,
        created_at: toUnixSeconds(Number(row.created_at)),
      };
    }),
  };
}
