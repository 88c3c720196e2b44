// SQLite gives the space of deleted rows back to the file system only with auto_vacuum: without
// it, pruning old rows leaves free pages inside the file forever. INCREMENTAL frees them when
// asked (freeFreePages, after a retention pass) instead of at every commit, which would move
// pages on the write path.
import type Database from "better-sqlite3";

const INCREMENTAL = 2;

export interface AutoVacuumNote {
  /** How long the one-time VACUUM of a database made before auto_vacuum took. */
  vacuumMs: number;
}

/**
 * Turns on incremental auto_vacuum. On a new database the setting only holds if made before
 * its first table (and before WAL, which writes the header), so this runs first at open; a
 * database made before it is rewritten once by VACUUM, which is what applies the setting.
 */
export function ensureIncrementalAutoVacuum(sqlite: Database.Database, now: () => number = Date.now): AutoVacuumNote | undefined {
  if (sqlite.pragma("auto_vacuum", { simple: true }) === INCREMENTAL) return undefined;
  sqlite.pragma("auto_vacuum = INCREMENTAL");
  const tables = sqlite.prepare("select count(*) as n from sqlite_master").get() as { n: number };
  if (tables.n === 0) return undefined;
  const started = now();
  sqlite.exec("VACUUM");
  return { vacuumMs: now() - started };
}

/** Frees up to `maxPages` free pages at the end of the file; returns how many it freed. */
export function freeFreePages(sqlite: Database.Database, maxPages: number): number {
  const before = sqlite.pragma("freelist_count", { simple: true }) as number;
  if (before === 0) return 0;
  // pragma() steps the statement to its end: each step frees one page.
  sqlite.pragma(`incremental_vacuum(${Math.max(1, Math.floor(maxPages))})`);
  return before - (sqlite.pragma("freelist_count", { simple: true }) as number);
}
