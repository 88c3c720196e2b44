// Where a browser test saves a screenshot: docs/<name>.png when SLUICE_SCREENSHOTS=1 (the
// pictures the README and docs show, made on demand), else a temporary folder, so that a
// test run leaves the working tree as it was.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const DOCS = resolve(dirname(fileURLToPath(import.meta.url)), "../../../docs");
let scratch: string | undefined;

export const SCREENSHOTS_TO_DOCS = process.env.SLUICE_SCREENSHOTS === "1" || process.env.SLUICE_UPDATE_SCREENSHOT === "1";

export function screenshotPath(name: string): string {
  if (SCREENSHOTS_TO_DOCS) return join(DOCS, `${name}.png`);
  scratch ??= mkdtempSync(join(tmpdir(), "sluice-ui-"));
  return join(scratch, `${name}.png`);
}
