// The package cache's size cap (SLUICE_PACKAGE_CACHE_MB): once the entries (one folder per
// name@version) add up to more, the least recently used go. "Used" is an install or a prepare
// of code that links the entry, which every execution asks for (module-store.ts), and is kept
// as the folder's mtime so that it outlives a restart and is seen by other processes sharing
// the data folder. An entry used within `graceMs` (longer than any run) is never removed: an
// execution in flight, or a runner that may still require() a file of it, keeps it. Code whose
// entry went is prepared again (and its package installed again) at its next execution.
import { randomUUID } from "node:crypto";
import { readdir, readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { folderBytes } from "./npm-install-policy.js";

/** The entry's size as measured when it was installed, in a file beside its node_modules. */
export const BYTES_FILE = ".bytes";
/** How often one process writes an entry's use to its mtime. */
const TOUCH_EVERY_MS = 60_000;

export interface PackageCacheLru {
  /** Records a new entry (a folder name in the cache) of `bytes`, used now. */
  added(entry: string, bytes: number): void;
  /** Marks an entry as used now. */
  used(entry: string): void;
  /** Removes least recently used entries until the cache fits its cap; answers the entries removed. */
  trim(): Promise<string[]>;
}

export interface PackageCacheLruOptions {
  /** The cache folder (entries are its subfolders whose names do not start with "."). */
  dir: string;
  /** Where entries are moved to be deleted (same file system, outside the cache). */
  trashDir: string;
  maxBytes: number;
  graceMs: number;
  now?: () => number;
  onEvict?(entry: string): void;
}

interface Entry {
  bytes: number;
  usedAt: number;
  touchedAt: number;
}

export function createPackageCacheLru(options: PackageCacheLruOptions): PackageCacheLru {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let loaded: Promise<void> | undefined;
  let trimming: Promise<string[]> = Promise.resolve([]);

  /** The entries already on disk (from before this process, or from another one), once. */
  async function load(): Promise<void> {
    const names = await readdir(options.dir).catch(() => [] as string[]);
    for (const name of names) {
      const known = entries.get(name);
      if (name.startsWith(".") || (known && known.bytes >= 0)) continue;
      const folder = join(options.dir, name);
      const info = await stat(folder).catch(() => undefined);
      if (!info?.isDirectory()) continue;
      const recorded = Number(await readFile(join(folder, BYTES_FILE), "utf8").catch(() => ""));
      const bytes = Number.isFinite(recorded) && recorded > 0 ? recorded : await folderBytes(folder);
      const usedAt = Math.max(info.mtimeMs, entries.get(name)?.usedAt ?? 0);
      entries.set(name, { bytes, usedAt, touchedAt: info.mtimeMs });
    }
  }

  function touch(entry: string, record: Entry): void {
    const at = now();
    record.usedAt = at;
    if (at - record.touchedAt < TOUCH_EVERY_MS) return;
    record.touchedAt = at;
    const time = new Date(at);
    utimes(join(options.dir, entry), time, time).catch(() => {});
  }

  async function trimNow(): Promise<string[]> {
    await (loaded ??= load());
    let total = 0;
    for (const entry of entries.values()) total += Math.max(0, entry.bytes);
    const removed: string[] = [];
    const oldestFirst = [...entries].sort(([, a], [, b]) => a.usedAt - b.usedAt);
    for (const [name, entry] of oldestFirst) {
      if (total <= options.maxBytes) break;
      // Another process may have used it since: its mtime says so.
      const mtime = (await stat(join(options.dir, name)).catch(() => undefined))?.mtimeMs;
      if (mtime === undefined) {
        entries.delete(name);
        total -= Math.max(0, entry.bytes);
        continue;
      }
      entry.usedAt = Math.max(entry.usedAt, mtime);
      if (now() - entry.usedAt < options.graceMs) continue;
      // Moved out in one step, so nobody sees a half-deleted package, then deleted.
      const trash = join(options.trashDir, `evicted-${randomUUID()}`);
      try {
        await rename(join(options.dir, name), trash);
      } catch {
        continue;
      }
      entries.delete(name);
      total -= Math.max(0, entry.bytes);
      removed.push(name);
      options.onEvict?.(name);
      await rm(trash, { recursive: true, force: true }).catch(() => {});
    }
    return removed;
  }

  return {
    added(entry, bytes) {
      const at = now();
      entries.set(entry, { bytes, usedAt: at, touchedAt: at });
    },
    used(entry) {
      let record = entries.get(entry);
      // Not known yet (installed before this process started): sized when the folder is loaded.
      if (!record) entries.set(entry, (record = { bytes: -1, usedAt: 0, touchedAt: 0 }));
      touch(entry, record);
    },
    trim() {
      trimming = trimming.then(trimNow, trimNow);
      return trimming;
    },
  };
}
