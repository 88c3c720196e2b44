// The few file operations cgroup management needs, behind an interface so that the logic
// above it can be exercised against a stand-in kernel where the real one lacks a mechanism
// (a machine with cgroup v1 only cannot show cgroup v2 at work).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";

export interface CgroupFs {
  read(path: string): string;
  /** Writes one value to an existing interface file; the kernel's refusal is thrown. */
  write(path: string, value: string): void;
  /**
   * The same off the event loop: moving a process between cgroups waits for an RCU grace
   * period in the kernel (about 10 ms, measured), too long to block the service for.
   */
  writeInBackground(path: string, value: string): Promise<void>;
  mkdir(path: string): void;
  rmdir(path: string): void;
  exists(path: string): boolean;
  /** The child cgroups of a folder. */
  list(path: string): string[];
}

export const realCgroupFs: CgroupFs = {
  read: (path) => readFileSync(path, "utf8"),
  // "r+": never create a stray file where an interface file is missing.
  write: (path, value) => writeFileSync(path, value, { flag: "r+" }),
  writeInBackground: (path, value) => writeFile(path, value, { flag: "r+" }),
  mkdir: (path) => mkdirSync(path),
  rmdir: (path) => rmdirSync(path),
  exists: (path) => existsSync(path),
  list: (path) =>
    readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name),
};

/** The errno code of a failed operation, or its message: what the notes and logs show. */
export function errorCode(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ?? String(e?.message ?? e);
}

/** "key value" lines (memory.events, cpu.stat, memory.oom_control) as numbers. */
export function parseKeyValues(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined) values.set(key, Number(value));
  }
  return values;
}
