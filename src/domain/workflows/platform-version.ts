// Sluice's version (package.json), reported as original_context.platform_version.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../runtime/package-root.js";

let cached: string | undefined;

export function platformVersion(): string {
  if (!cached) {
    const pkg = JSON.parse(readFileSync(join(packageRoot(import.meta.url), "package.json"), "utf8")) as { version?: string };
    cached = `sluice/${pkg.version ?? "0.0.0"}`;
  }
  return cached;
}
