// A copy of some compiled files in a fresh folder every user can read, for a test that starts a
// process as another user. The checkout itself may sit in a folder only root can enter (a clone
// under /root, or in a `mktemp -d` folder of mode 0700), where that user would not even find the
// module. The service does the same for its runners (src/runtime/sandbox/runner-user.ts).
import { chmodSync, cpSync, lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The compiled tree: dist/ (this file is dist/test/helpers/readable-copy.js). */
const DIST = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ReadableCopy {
  /** The copy's file: URL of a path relative to dist/, e.g. "src/runtime/limits/runner-limits.js". */
  url(relative: string): string;
  close(): void;
}

function openTree(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) openTree(join(path, name));
  } else chmodSync(path, 0o644);
}

/**
 * Copies these files or folders (relative to dist/) and the checkout's package.json (which
 * makes the compiled .js files ES modules) into a fresh folder under the system's temp folder.
 * The copy holds compiled code only: whatever it imports must be in `relatives` too.
 */
export function readableCopy(relatives: string[]): ReadableCopy {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "sluice-test-app-")));
  try {
    cpSync(join(DIST, "..", "package.json"), join(root, "package.json"));
    for (const relative of relatives) cpSync(join(DIST, relative), join(root, relative), { recursive: true, dereference: true });
    openTree(root);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    url: (relative) => pathToFileURL(join(root, relative)).href,
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}
