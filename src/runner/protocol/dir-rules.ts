// What the files of one source's `dir` props may be (the caps the platform promises): a path, its depth,
// the number of files and their bytes, each file counted with a fixed overhead so that many
// empty files cost what their inodes and disk work cost. The runner checks each write against
// these (src/runner/dir-interface.ts) and the service checks the whole change set again
// (domain/sources/source-file-changes.ts), since the runner is not trusted.

/** A path's bytes (UTF-8), separators included. */
export const MAX_DIR_PATH_BYTES = 255;
/** Folders plus the file: "a/b/c.txt" has 3 levels. */
export const MAX_DIR_DEPTH = 16;
/** Counted against the byte cap for every file besides its contents. */
export const DIR_FILE_OVERHEAD_BYTES = 4096;

/** The caps of one source's files that come from settings. */
export interface DirCaps {
  /** Files in all (SLUICE_SOURCE_FILES_MAX). */
  maxFiles: number;
  /** Bytes in all, with DIR_FILE_OVERHEAD_BYTES per file (SLUICE_SOURCE_FILES_MB). */
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

/** Bytes counted for files of these sizes. */
export function countedBytes(files: number, contentBytes: number): number {
  return contentBytes + files * DIR_FILE_OVERHEAD_BYTES;
}

export const filesOverCap = (count: number, caps: DirCaps) =>
  `the source would have ${count} files, over the limit of ${caps.maxFiles} (SLUICE_SOURCE_FILES_MAX)`;
export const bytesOverCap = (bytes: number, caps: DirCaps) =>
  `the source's files would take ${bytes} bytes (${DIR_FILE_OVERHEAD_BYTES} counted per file), over the limit of ${caps.maxBytes} bytes (SLUICE_SOURCE_FILES_MB)`;
export const fileFolderClash = (file: string, folder: string) => `"${file}" would be both a file and the folder of "${folder}"`;
