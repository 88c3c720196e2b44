// Sluice's version (package.json), reported as original_context.platform_version. Found by
// walking up from this file, so it works from dist/ and dist-*/ builds alike.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function platformVersion(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      cached = `sluice/${(JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version ?? "0.0.0"}`;
      return cached;
    }
    dir = dirname(dir);
  }
  cached = "sluice/unknown";
  return cached;
}
