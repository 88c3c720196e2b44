// A `dir` prop: the source's files, in the shape of Pipedream's file-store API. The files arrive
// with the execution and what the code writes or deletes goes back with its result; the service
// keeps them under its data directory (domain/sources/source-files.ts) and checks them again.
// Here a write past a cap (protocol/dir-rules.ts) fails at once with a SourceFilesError, so the
// code that made it can tell, and the change set it hands back stays within the caps.
import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import { Readable, type Readable as ReadableStream } from "node:stream";
import type { DirChanges } from "./protocol/component-execution.js";
import {
  bytesOverCap,
  countedBytes,
  dirPathProblem,
  fileFolderClash,
  filesOverCap,
  foldersOf,
  SOURCE_FILES_ERROR,
  type DirCaps,
} from "./protocol/dir-rules.js";

export class SourceFilesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = SOURCE_FILES_ERROR;
  }
}

const UNCAPPED: DirCaps = { maxFiles: Infinity, maxBytes: Infinity };

export class DirFiles {
  private readonly files = new Map<string, Buffer>();
  /** Files under each folder, to tell a file from a folder without a scan. */
  private readonly folders = new Map<string, number>();
  private contentBytes = 0;
  private readonly written = new Set<string>();
  private readonly deleted = new Set<string>();

  constructor(
    initial: Record<string, string> | undefined,
    private readonly caps: DirCaps = UNCAPPED,
  ) {
    for (const [path, data] of Object.entries(initial ?? {})) this.put(path, Buffer.from(data, "base64"));
  }

  get(path: string): Buffer | undefined {
    return this.files.get(path);
  }

  /** Writes a file; a SourceFilesError (nothing changed) when that would break a rule. */
  set(path: string, data: Buffer): void {
    const problem = this.problemOf(path, data);
    if (problem) throw new SourceFilesError(`${problem}; the file was not written`);
    this.remove(path);
    this.put(path, data);
    this.written.add(path);
    this.deleted.delete(path);
  }

  delete(path: string): void {
    this.remove(path);
    this.written.delete(path);
    this.deleted.add(path);
  }

  paths(): string[] {
    return [...this.files.keys()].sort();
  }

  /** What changed, or undefined when nothing did. */
  changes(): DirChanges | undefined {
    if (this.written.size === 0 && this.deleted.size === 0) return undefined;
    const written: Record<string, string> = {};
    for (const path of this.written) written[path] = this.files.get(path)!.toString("base64");
    return { written, deleted: [...this.deleted] };
  }

  private problemOf(path: string, data: Buffer): string | undefined {
    const pathProblem = dirPathProblem(path);
    if (pathProblem) return pathProblem;
    if (this.folders.has(path)) return fileFolderClash(path, `${path}/…`);
    const file = foldersOf(path).find((folder) => this.files.has(folder));
    if (file) return fileFolderClash(file, path);
    const old = this.files.get(path);
    const count = this.files.size + (old ? 0 : 1);
    if (count > this.caps.maxFiles) return filesOverCap(count, this.caps);
    const folders = this.folders.size + foldersOf(path).filter((folder) => !this.folders.has(folder)).length;
    const bytes = countedBytes(count + folders, this.contentBytes - (old?.length ?? 0) + data.length);
    if (bytes > this.caps.maxBytes) return bytesOverCap(bytes, this.caps);
    return undefined;
  }

  private put(path: string, data: Buffer): void {
    this.files.set(path, data);
    this.contentBytes += data.length;
    for (const folder of foldersOf(path)) this.folders.set(folder, (this.folders.get(folder) ?? 0) + 1);
  }

  private remove(path: string): void {
    const old = this.files.get(path);
    if (!old) return;
    this.files.delete(path);
    this.contentBytes -= old.length;
    for (const folder of foldersOf(path)) {
      const left = this.folders.get(folder)! - 1;
      if (left === 0) this.folders.delete(folder);
      else this.folders.set(folder, left);
    }
  }
}

/** "a/./b.txt" → "a/b.txt"; absolute paths, ".." above the folder and empty names are refused. */
export function normalizeDirPath(path: unknown): string {
  if (typeof path !== "string" || path === "") throw new TypeError("a file path must be a non-empty string");
  const normalized = posix.normalize(path.replace(/^\/+/, ""));
  if (normalized === "." || normalized.startsWith("../") || normalized === ".." || normalized.endsWith("/"))
    throw new TypeError(`"${path}" is not a file path inside the folder`);
  return normalized;
}

export function dirInterface(files: DirFiles) {
  const open = (path: string) => fileHandle(files, normalizeDirPath(path));
  return {
    open,
    /** Entries directly under `path` ("" for the top): files and the folders that hold files. */
    async *dir(path = "") {
      const prefix = path === "" || path === "/" ? "" : `${normalizeDirPath(path)}/`;
      const folders = new Set<string>();
      for (const file of files.paths()) {
        if (!file.startsWith(prefix)) continue;
        const rest = file.slice(prefix.length);
        const slash = rest.indexOf("/");
        if (slash === -1) yield entry(file, files.get(file)!.length, false);
        else folders.add(prefix + rest.slice(0, slash));
      }
      for (const folder of [...folders].sort()) yield entry(folder, 0, true);
    },
  };
}

function entry(path: string, size: number, isDirectory: boolean) {
  return { path, name: posix.basename(path), size, isFile: () => !isDirectory, isDirectory: () => isDirectory };
}

function fileHandle(files: DirFiles, path: string) {
  const contents = () => {
    const data = files.get(path);
    if (!data) throw new Error(`no file "${path}"`);
    return data;
  };
  const handle = {
    path,
    async toBuffer(): Promise<Buffer> {
      return Buffer.from(contents());
    },
    async toEncodedString(encoding: BufferEncoding = "utf8", start?: number, end?: number): Promise<string> {
      return contents().toString(encoding, start, end);
    },
    async createReadStream(): Promise<ReadableStream> {
      return Readable.from([Buffer.from(contents())]);
    },
    async fromReadableStream(stream: AsyncIterable<unknown>) {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
      files.set(path, Buffer.concat(chunks));
      return handle;
    },
    async fromFile(localPath: string) {
      files.set(path, await readFile(localPath));
      return handle;
    },
    /** Not in Pipedream's API: writes text or bytes at once. */
    async fromContent(content: string | Uint8Array) {
      files.set(path, typeof content === "string" ? Buffer.from(content) : Buffer.from(content));
      return handle;
    },
    async delete(): Promise<void> {
      files.delete(path);
    },
    // Pipedream hands out presigned URLs; files here have none, so these change nothing.
    withoutPutUrl: () => handle,
    withoutGetUrl: () => handle,
  };
  return handle;
}
