// The components of an installed registry package, found where Pipedream's `@pipedream/<app>`
// packages keep them: each in a folder of its own under sources/ (or actions/), in a file named
// like the folder (sources/new-message/new-message.mjs). Other files there (sources/common/…,
// test events) are what those files import.
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ServiceError } from "../../lib/errors.js";

const EXTENSIONS = [".mjs", ".js", ".cjs"];
const MAX_PACKAGE_SOURCES = 500;
const MAX_CODE_BYTES = 2 * 1024 * 1024;

/** Paths relative to the package's folder, sorted. */
export async function packageSourceFiles(packageDir: string, kind: "sources" | "actions" = "sources"): Promise<string[]> {
  let folders: string[];
  try {
    folders = (await readdir(join(packageDir, kind), { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const folder of folders.sort()) {
    for (const extension of EXTENSIONS) {
      const path = `${kind}/${folder}/${folder}${extension}`;
      const stats = await lstat(join(packageDir, path)).catch(() => undefined);
      if (!stats?.isFile()) continue;
      found.push(path);
      break;
    }
    if (found.length >= MAX_PACKAGE_SOURCES) break;
  }
  return found;
}

/** A source file's code, kept with its component (shown by the API). */
export async function readSourceCode(packageDir: string, path: string): Promise<string> {
  const full = join(packageDir, path);
  const stats = await lstat(full);
  if (!stats.isFile()) throw new ServiceError("VALIDATION", `${path} is not a file`);
  if (stats.size > MAX_CODE_BYTES) throw new ServiceError("PAYLOAD_TOO_LARGE", `${path} is larger than 2 MB`);
  return readFile(full, "utf8");
}
