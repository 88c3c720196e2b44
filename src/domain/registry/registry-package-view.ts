// A registry package as the admin API shows it: the pinned version, when it was added and
// last changed, and the keys it publishes.
import { toUnixSeconds } from "../../lib/clock.js";
import type { RegistryPackagesTable } from "../../store/schema.js";

export interface RegistryPackageView {
  name: string;
  /** The exact version every host installs. */
  version: string;
  added_at: number;
  updated_at: number;
  /** The published keys that stand for components of this package. */
  keys: string[];
}

export function registryPackageView(row: RegistryPackagesTable, keys: string[]): RegistryPackageView {
  return { name: row.name, version: row.version, added_at: toUnixSeconds(Number(row.added_at)), updated_at: toUnixSeconds(Number(row.updated_at)), keys: [...keys].sort() };
}
