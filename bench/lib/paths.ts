// Locates the compiled tree the bench runs from (dist/bench/lib → dist/).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export { packageRoot as repoRoot } from "../../src/runtime/package-root.js";

/** The compiled tree the bench itself runs from (dist/ or a dist-* build). */
export function compiledRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..");
}
