// What names a registry package: an npm package name and, optionally, a version, range or
// dist-tag. Checked strictly before npm sees it, so that nothing but a registry package can be
// asked for: no flags, URLs, git or file specs, or aliases.
import { invalid } from "../../lib/errors.js";
import { parsePackageSpecifier } from "../../runtime/modules/specifiers.js";

export interface PackageRequest {
  name: string;
  /** A version, range or dist-tag; undefined for the `latest` tag. */
  range: string | undefined;
}

const MAX_NAME_LENGTH = 214; // npm's own limit
// Versions (1.2.3), ranges (^1.2, >=1 <2, 1.x || 2.x) and tags (latest, next): never ":" or "/".
const RANGE = /^[A-Za-z0-9^~<>=*.][A-Za-z0-9^~<>=*.|+ -]{0,63}$/;

/** `{name, version?}` as the admin API takes it. */
export function packageRequest(input: { name: string; version?: string | null }): PackageRequest {
  const name = input.name.trim();
  const parsed = parsePackageSpecifier(name);
  if (!parsed || parsed.name !== name || parsed.version !== undefined || parsed.subpath !== "" || name.length > MAX_NAME_LENGTH) {
    throw invalid(`"${input.name}" is not a valid npm package name (a registry package is named like @pipedream/slack)`);
  }
  const version = input.version?.trim();
  if (version === undefined || version === "") return { name, range: undefined };
  if (!RANGE.test(version)) throw invalid(`"${input.version}" is not a valid version, range or tag of an npm package (e.g. 0.9.4, ^0.9 or latest)`);
  return { name, range: version };
}

/** `name[@version]` as the CLI and SLUICE_REGISTRY_PACKAGES give it, e.g. `@pipedream/slack@0.9.4`. */
export function parsePackageRequest(spec: string): PackageRequest {
  const text = spec.trim();
  const parsed = parsePackageSpecifier(text);
  if (!parsed || parsed.subpath !== "") throw invalid(`"${spec}" is not an npm package name with an optional version (e.g. @pipedream/slack or @pipedream/slack@0.9.4)`);
  return packageRequest({ name: parsed.name, version: parsed.version });
}
