// The files of a source's `dir` props, kept under the data directory (one folder per source,
// removed with the source). They travel to the runner with each execution and what it wrote
// comes back with the result; the changes are checked here, since the runner is not trusted:
// paths must stay inside the folder, and the folder must stay under the size cap.
import { mkdir, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import type { Ctx } from "../context.js";
import type { DirChanges } from "../../runtime/code-runner.js";

export const sourceFilesDir = (ctx: Pick<Ctx, "config">, sourceId: string) => join(ctx.config.dataDir, "source-files", sourceId);

/** The source's files, base64 by relative path ("{}" before anything was written). */
export async function readSourceFiles(ctx: Pick<Ctx, "config">, sourceId: string): Promise<Record<string, string>> {
  const root = sourceFilesDir(ctx, sourceId);
  const files: Record<string, string> = {};
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(join(root, relative), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files[path] = (await readFile(join(root, path))).toString("base64");
    }
  };
  await walk("");
  return files;
}

/** Applies an execution's changes; a message instead when they break a rule (nothing is then changed). */
export async function applySourceFileChanges(ctx: Pick<Ctx, "config">, sourceId: string, before: Record<string, string>, changes: DirChanges): Promise<string | undefined> {
  const sizes = new Map(Object.entries(before).map(([path, data]) => [path, Buffer.byteLength(data, "base64")]));
  const written = new Map<string, Buffer>();
  const deleted: string[] = [];
  for (const path of changes.deleted) {
    const safe = safePath(path);
    if (!safe) return `the code deleted a file outside its folder: "${path}"`;
    sizes.delete(safe);
    deleted.push(safe);
  }
  for (const [path, data] of Object.entries(changes.written)) {
    const safe = safePath(path);
    if (!safe) return `the code wrote a file outside its folder: "${path}"`;
    const bytes = Buffer.from(data, "base64");
    sizes.set(safe, bytes.length);
    written.set(safe, bytes);
  }
  const total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  const cap = ctx.config.sourceFilesBytes;
  if (total > cap) return `the source's files would take ${total} bytes, over the limit of ${cap} bytes (SLUICE_SOURCE_FILES_MB); the changes of this execution were not kept`;
  const root = sourceFilesDir(ctx, sourceId);
  for (const path of deleted) {
    await unlink(join(root, path)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT" && error.code !== "EISDIR") throw error;
    });
  }
  for (const [path, bytes] of written) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), bytes);
  }
  return undefined;
}

export async function removeSourceFiles(ctx: Pick<Ctx, "config">, sourceId: string): Promise<void> {
  await rm(sourceFilesDir(ctx, sourceId), { recursive: true, force: true });
}

function safePath(path: string): string | undefined {
  const normalized = posix.normalize(path.replace(/^\/+/, ""));
  if (normalized === "." || normalized === ".." || normalized.startsWith("../") || normalized.endsWith("/") || normalized.includes("\0")) return undefined;
  return normalized;
}
