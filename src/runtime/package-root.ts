// The folder holding package.json, found by walking up from a module's own location, so paths
// work from dist/src/... and dist-NAME/src/... alike.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function packageRoot(fromUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(fromUrl));
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("package.json not found above the runtime");
    dir = parent;
  }
}
