// `sluice backup <file>`: a consistent online copy of the SQLite database (store/sqlite-backup.ts)
// and, beside it as `<file>.key`, the key of connected accounts' credentials, without which the
// copy's credentials cannot be read. With SLUICE_SECRET_KEY set the key lives in the operator's
// secrets, not in the data directory: it is named, never written to a file, so a backup adds no
// copy of a secret the operator already keeps elsewhere. PostgreSQL is backed up with its own
// tools (pg_dump), which this verb names instead.
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseSecretKey, type Config } from "../../config.js";
import { invalid } from "../../lib/errors.js";
import { inspectDatabase } from "../../store/inspect-database.js";
import { backupSqlite, sqliteDatabasePath } from "../../store/sqlite-backup.js";
import { KEY_FILE, keyOpensCheck } from "../accounts/credential-key.js";

export interface BackupResult {
  databaseFile: string;
  pages: number;
  /** Where the key was copied (`<file>.key`), or undefined when it was not (see keyNote). */
  keyFile: string | undefined;
  /** One line on the key: where it was copied, or where it lives instead. */
  keyNote: string;
  /** What makes this backup unusable as it stands (a missing or wrong key); empty when sound. */
  problems: string[];
}

export const POSTGRES_BACKUP_ADVICE =
  'DATABASE_URL is set: back up PostgreSQL with its own tools, e.g. pg_dump --format=custom --file=sluice.dump "$DATABASE_URL" ' +
  "(restore with pg_restore), and keep SLUICE_SECRET_KEY with the dump: without it the connected accounts' credentials cannot be read";

export async function backupDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir" | "secretKey">,
  file: string,
  options: { force?: boolean } = {},
): Promise<BackupResult> {
  if (config.databaseUrl) throw invalid(POSTGRES_BACKUP_ADVICE);
  const databaseFile = resolve(file);
  const keyCopy = `${databaseFile}.key`;
  if (!existsSync(sqliteDatabasePath(config.dataDir)))
    throw invalid(`there is no database at ${sqliteDatabasePath(config.dataDir)}: check SLUICE_DATA_DIR`);
  if (!options.force) {
    for (const path of [databaseFile, keyCopy])
      if (existsSync(path)) throw invalid(`${path} exists; choose another file or pass --force to replace it`);
  }
  const keyPath = join(config.dataDir, KEY_FILE);
  // Read before the copy: a key made later (first start) could not belong to it anyway.
  const fileKey = config.secretKey === undefined && existsSync(keyPath) ? readFileSync(keyPath, "utf8") : undefined;
  const { pages } = await backupSqlite(config.dataDir, databaseFile);
  const copy = await inspectDatabase({ dataDir: config.dataDir, sqliteFile: databaseFile });
  const problems: string[] = [];
  let keyFile: string | undefined;
  let keyNote: string;
  let key: Buffer | undefined = config.secretKey;
  if (config.secretKey) {
    keyNote = "the credentials key is SLUICE_SECRET_KEY (set in the environment, not written to a file): keep it with this backup";
    if (options.force) rmSync(keyCopy, { force: true });
  } else if (fileKey !== undefined) {
    writeFileSync(keyCopy, fileKey, { mode: 0o600 });
    // An existing file keeps its mode through writeFileSync: make sure of 0600.
    chmodSync(keyCopy, 0o600);
    keyFile = keyCopy;
    keyNote = `the credentials key was copied to ${keyCopy} (mode 0600); restore it as ${KEY_FILE} in the data directory`;
    key = parseSecretKey(fileKey, keyPath);
  } else {
    keyNote = `there is no key file ${keyPath}`;
    if (copy.secretChecks.size > 0)
      problems.push(
        `${keyPath} is missing but the database holds credentials encrypted with a key: find that key, or the copy's connected accounts cannot be read`,
      );
    else keyNote += " (the server makes one at its first start; nothing is encrypted yet)";
  }
  if (key && keyOpensCheck(key, copy.secretChecks) === false) {
    problems.push(
      `${config.secretKey ? "SLUICE_SECRET_KEY" : keyPath} is not the key the database's credentials were encrypted with: the copy's connected accounts cannot be read with it`,
    );
  }
  return { databaseFile, pages, keyFile, keyNote, problems };
}
