// A `dir` prop: the source's files, in the shape of Pipedream's file-store API. The files arrive
// with the execution and what the code writes or deletes goes back with its result; the service
// keeps them under its data directory (domain/sources/source-files.ts) and enforces the cap.
import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import { Readable, type Readable as ReadableStream } from "node:stream";
import type { DirChanges } from "../code-runner.js";

export class DirFiles {
  private readonly files: Map<string, Buffer>;
  private readonly written = new Set<string>();
  private readonly deleted = new Set<string>();

  constructor(initial: Record<string, string> | undefined) {
    this.files = new Map(Object.entries(initial ?? {}).map(([path, data]) => [path, Buffer.from(data, "base64")]));
  }

  get(path: string): Buffer | undefined {
    return this.files.get(path);
  }

  set(path: string, data: Buffer): void {
    this.files.set(path, data);
    this.written.add(path);
    this.deleted.delete(path);
  }

  delete(path: string): void {
    this.files.delete(path);
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
}

/** "a/./b.txt" → "a/b.txt"; absolute paths, ".." above the folder and empty names are refused. */
export function normalizeDirPath(path: unknown): string {
  if (typeof path !== "string" || path === "") throw new TypeError("a file path must be a non-empty string");
  const normalized = posix.normalize(path.replace(/^\/+/, ""));
  if (normalized === "." || normalized.startsWith("../") || normalized === ".." || normalized.endsWith("/")) throw new TypeError(`"${path}" is not a file path inside the folder`);
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
