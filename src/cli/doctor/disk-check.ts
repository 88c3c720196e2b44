// Room in the data directory (the SQLite database, its WAL, the npm package cache, `dir` props'
// files) and whether the service may write there.
import { accessSync, constants, existsSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { fail, messageOf, ok, warn, type CheckResult } from "./check.js";

const MB = 1024 * 1024;
/** Below this a write may fail any moment: SQLite needs room for its WAL and checkpoints. */
export const FAIL_BELOW_BYTES = 200 * MB;
/** Below this the package cache (2 GB by default) alone may fill it. */
export const WARN_BELOW_BYTES = 2048 * MB;

/** The data directory, or the nearest folder above it that exists (made at first start). */
function existingFolder(path: string): string {
  let folder = path;
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
}

export const freeBytesAt = (path: string): number => {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
};

export function diskCheck(dataDir: string, freeBytes: (path: string) => number = freeBytesAt): CheckResult {
  const folder = existingFolder(dataDir);
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    return fail(
      "disk",
      `${folder} is not writable (${messageOf(error)})`,
      `give the service's user write access to ${folder}, or set SLUICE_DATA_DIR to a folder it owns`,
    );
  }
  let free: number;
  try {
    free = freeBytes(folder);
  } catch (error) {
    return warn("disk", `free space of ${folder} unknown (${messageOf(error)})`, "check it with: df -h");
  }
  const shown = `${Math.floor(free / MB)} MB free at ${folder}`;
  if (free < FAIL_BELOW_BYTES)
    return fail("disk", shown, `free space there (at least ${WARN_BELOW_BYTES / MB} MB), or set SLUICE_DATA_DIR to a larger disk`);
  if (free < WARN_BELOW_BYTES)
    return warn("disk", shown, `free space there (at least ${WARN_BELOW_BYTES / MB} MB), or lower SLUICE_PACKAGE_CACHE_MB`);
  return ok("disk", shown);
}
