// The service's check of the file changes a runner sent back for a source's `dir` props. The
// runner checked each write already, but it is not trusted: the whole change set is checked
// here against the files the execution started from, and it is kept whole or not at all.
import { posix } from "node:path";
import {
  bytesOverCap,
  countedBytes,
  dirPathProblem,
  fileFolderClash,
  filesOverCap,
  folderCount,
  foldersOf,
  type DirCaps,
} from "../../runner/protocol/dir-rules.js";
import type { DirChanges } from "../../runtime/code-runner.js";

/** A checked change set: normalized paths, contents decoded, every path in one list only. */
export interface FilePlan {
  written: Array<[path: string, bytes: Buffer]>;
  deleted: string[];
}

/** The plan, or why the change set is refused (then nothing of it may be written). */
export function checkFileChanges(before: Record<string, string>, changes: DirChanges, caps: DirCaps): FilePlan | string {
  const sizes = new Map(Object.entries(before).map(([path, data]) => [path, Buffer.byteLength(data, "base64")]));
  const touched = new Set<string>();
  const plan: FilePlan = { written: [], deleted: [] };
  for (const path of changes.deleted) {
    const safe = safePath(path);
    if (!safe) return `the code deleted a file outside its folder: "${String(path).slice(0, 300)}"`;
    if (touched.has(safe)) return `the change set names "${safe}" twice`;
    touched.add(safe);
    if (sizes.delete(safe)) plan.deleted.push(safe);
  }
  for (const [path, data] of Object.entries(changes.written)) {
    const safe = safePath(path);
    if (!safe) return `the code wrote a file outside its folder: "${path.slice(0, 300)}"`;
    if (touched.has(safe)) return `the change set names "${safe}" twice`;
    touched.add(safe);
    const problem = dirPathProblem(safe);
    if (problem) return problem;
    const bytes = Buffer.from(data, "base64");
    sizes.set(safe, bytes.length);
    plan.written.push([safe, bytes]);
  }
  for (const [path] of plan.written) {
    const file = foldersOf(path).find((folder) => sizes.has(folder));
    if (file) return fileFolderClash(file, path);
  }
  // A written file whose path is a folder of a kept file: the kept file names it as a folder.
  const written = new Set(plan.written.map(([path]) => path));
  for (const path of sizes.keys()) {
    const folder = foldersOf(path).find((f) => written.has(f));
    if (folder) return fileFolderClash(folder, path);
  }
  // Files kept from before only need checking when their number or bytes grow: a source over
  // a cap lowered since (or from before the cap) can still delete its way under it.
  const beforeCount = Object.keys(before).length;
  if (sizes.size > caps.maxFiles && sizes.size > beforeCount) return filesOverCap(sizes.size, caps);
  let content = 0;
  for (const size of sizes.values()) content += size;
  const bytes = countedBytes(sizes.size + folderCount(sizes.keys()), content);
  if (
    bytes > caps.maxBytes &&
    bytes >
      countedBytes(
        beforeCount + folderCount(Object.keys(before)),
        Object.values(before).reduce((sum, data) => sum + Buffer.byteLength(data, "base64"), 0),
      )
  )
    return bytesOverCap(bytes, caps);
  return plan;
}

/** "a/./b" → "a/b"; undefined for a path that leaves the folder or names none. */
function safePath(path: unknown): string | undefined {
  if (typeof path !== "string" || path === "" || path.includes("\0")) return undefined;
  const normalized = posix.normalize(path.replace(/^\/+/, ""));
  if (normalized === "." || normalized === ".." || normalized.startsWith("../") || normalized.endsWith("/")) return undefined;
  return normalized;
}
