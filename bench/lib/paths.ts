// Locates the compiled CLI from the compiled bench file (dist/bench/lib → repo root).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";

export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("package.json not found above the bench files");
    dir = parent;
  }
  return dir;
}

/** The compiled tree the bench itself runs from (dist/ or a dist-* build). */
export function compiledRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..");
}
