// What the files of one source's `dir` props may be (the caps the platform promises): a path, its depth,
// the number of files and their bytes, each file and each folder counted with a fixed overhead
// so that many empty files, or deep paths, cost what their inodes and disk work cost. The runner checks each write against
// these (src/runner/dir-interface.ts) and the service checks the whole change set again
// (domain/sources/source-file-changes.ts), since the runner is not trusted.

/** A path's bytes (UTF-8), separators included. */
export const MAX_DIR_PATH_BYTES = 255;
/** Folders plus the file: "a/b/c.txt" has 3 levels. */
export const MAX_DIR_DEPTH = 16;
/** Counted against the byte cap for every file besides its contents, and for every folder. */
export const DIR_FILE_OVERHEAD_BYTES = 4096;

/** The caps of one source's files that come from settings. */
export interface DirCaps {
  /** Files in all (SLUICE_SOURCE_FILES_MAX). */
  maxFiles: number;
  /** Bytes in all, with DIR_FILE_OVERHEAD_BYTES per file and per folder (SLUICE_SOURCE_FILES_MB). */
  maxBytes: number;
}

/** The error a refused write or change set carries, in the runner and on $errors. */
export const SOURCE_FILES_ERROR = "SourceFilesError";

/** Why a normalized relative path may not name a file, or undefined when it may. */
export function dirPathProblem(path: string): string | undefined {
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_DIR_PATH_BYTES) return `the path "${path.slice(0, 64)}…" has ${bytes} bytes, over the limit of ${MAX_DIR_PATH_BYTES}`;
  const depth = path.split("/").length;
  if (depth > MAX_DIR_DEPTH) return `the path "${path}" is ${depth} levels deep, over the limit of ${MAX_DIR_DEPTH}`;
  return undefined;
}

/** The folders a file path lies in, outermost first: "a/b/c" → ["a", "a/b"]. */
export function foldersOf(path: string): string[] {
  const folders: string[] = [];
  for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1)) folders.push(path.slice(0, slash));
  return folders;
}

/** Bytes counted for this many files and folders whose files hold `contentBytes`. */
export function countedBytes(entries: number, contentBytes: number): number {
  return contentBytes + entries * DIR_FILE_OVERHEAD_BYTES;
}

/** How many distinct folders these file paths lie in. */
export function folderCount(paths: Iterable<string>): number {
  const folders = new Set<string>();
  for (const path of paths) for (const folder of foldersOf(path)) folders.add(folder);
  return folders.size;
}

export const filesOverCap = (count: number, caps: DirCaps) =>
  `the source would have ${count} files, over the limit of ${caps.maxFiles} (SLUICE_SOURCE_FILES_MAX)`;
export const bytesOverCap = (bytes: number, caps: DirCaps) =>
  `the source's files would take ${bytes} bytes (${DIR_FILE_OVERHEAD_BYTES} counted per file and per folder), over the limit of ${caps.maxBytes} bytes (SLUICE_SOURCE_FILES_MB)`;
export const fileFolderClash = (file: string, folder: string) => `"${file}" would be both a file and the folder of "${folder}"`;
