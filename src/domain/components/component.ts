// A saved component as the domain sees it, and its API view (spec: Component).
import { createHash } from "node:crypto";
import { toUnixSeconds } from "../../lib/clock.js";
import type { ComponentMetadata, PackageEntry } from "../../runtime/code-runner.js";
import type { ComponentsTable } from "../../store/schema.js";

export interface SavedComponent {
  id: string;
  /** null for a published registry component. */
  userId: string | null;
  key: string | null;
  name: string;
  version: string;
  code: string;
  codeHash: string;
  componentUrl: string | null;
  /** The files relative imports resolve to (component_files), by path relative to the code. */
  files: Record<string, string> | undefined;
  metadata: ComponentMetadata;
  /** For a component of a registry package: loaded from that package, installed on demand. */
  package: PackageEntry | undefined;
  createdAt: number; // ms
  updatedAt: number; // ms
}

export interface ComponentView {
  id: string;
  key: string | null;
  code: string;
  code_hash: string;
  name: string;
  version: string;
  configurable_props: ComponentMetadata["configurable_props"];
  /** Whether additionalProps() adds props (POST /components/{id}/props/reload lists them). */
  additional_props: boolean;
  component_url: string | null;
  created_at: number;
  updated_at: number;
}

export const codeHash = (code: string): string => createHash("sha256").update(code).digest("hex");

export function componentFromRow(row: ComponentsTable): SavedComponent {
  return {
    id: row.id,
    userId: row.user_id,
    key: row.key,
    name: row.name,
    version: row.version,
    code: row.code,
    codeHash: row.code_hash,
    componentUrl: row.component_url,
    files: row.files ? (JSON.parse(row.files) as Record<string, string>) : undefined,
    metadata: JSON.parse(row.metadata) as ComponentMetadata,
    package: packageOf(row),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function packageOf(row: Pick<ComponentsTable, "package_name" | "package_version" | "package_path">): PackageEntry | undefined {
  return row.package_name && row.package_version && row.package_path
    ? { name: row.package_name, version: row.package_version, path: row.package_path }
    : undefined;
}

export function componentView(component: SavedComponent): ComponentView {
  return {
    id: component.id,
    key: component.key,
    code: component.code,
    code_hash: component.codeHash,
    name: component.name,
    version: component.version,
    configurable_props: component.metadata.configurable_props,
    // A props form asks POST …/props/reload for the rest (additionalProps()).
    additional_props: component.metadata.additional_props === true,
    component_url: component.componentUrl,
    created_at: toUnixSeconds(component.createdAt),
    updated_at: toUnixSeconds(component.updatedAt),
  };
}
