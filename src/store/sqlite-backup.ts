// A consistent copy of the SQLite database while the service keeps writing to it, by SQLite's
// online backup API on a connection of its own (the `sluice backup` process, beside the
// server). The copy is made in ONE backup step: a step reads inside one read transaction, and
// in WAL mode a reader neither blocks the server's writes nor sees them, so the copy is the
// database as of one moment. Copied in small steps instead, every write the server made
// between two steps would restart the backup, and under steady load it might never finish.
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, existsSync, openSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SQLite } from "./sqlite-driver.js";
import { DATABASE_FILE } from "./sqlite.js";

export interface SqliteBackup {
  /** Pages copied (of the database's page size). */
  pages: number;
  /** Whether `PRAGMA quick_check` found the copy sound. */
  check: string;
}

/** The whole database in one step: better-sqlite3 caps a step's page count at this. */
const ALL_PAGES = 0x7fffffff;

export const sqliteDatabasePath = (dataDir: string): string => join(dataDir, DATABASE_FILE);

/**
 * Copies the database of `dataDir` to `destination` (mode 0600: it holds every account's
 * events and credentials). The copy appears under its name only once complete and checked,
 * so an interrupted backup never leaves a file that looks like one.
 */
export async function backupSqlite(dataDir: string, destination: string): Promise<SqliteBackup> {
  const source = sqliteDatabasePath(dataDir);
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  const partial = join(dirname(destination), `.${basename(destination)}.${randomBytes(4).toString("hex")}.partial`);
  // Made first with its mode, so the copy is never readable by others, whatever the umask.
  closeSync(openSync(partial, "wx", 0o600));
  const db = new SQLite(source, { fileMustExist: true });
  try {
    // The server may hold the write lock for a moment; the backup's read waits, not fails.
    db.pragma("busy_timeout = 5000");
    const { totalPages } = await db.backup(partial, { progress: () => ALL_PAGES });
    const check = checkCopy(partial);
    if (check !== "ok") throw new Error(`the copy failed its check (${check})`);
    chmodSync(partial, 0o600);
    renameSync(partial, destination);
    return { pages: totalPages, check };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
}

/** Checks the copy and leaves it one self-contained file (no -wal or -shm beside it). */
function checkCopy(file: string): string {
  const copy = new SQLite(file, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
    return copy.pragma("quick_check", { simple: true }) as string;
  } finally {
    copy.close();
  }
}
