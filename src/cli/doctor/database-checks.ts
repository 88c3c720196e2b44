// The database (reachable, and at a schema this release can run) and the key of connected
// accounts' credentials (readable by the service only, and the one the database was used with).
// Read without changing anything: the migrations are left to the server's next start.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseSecretKey, type Config } from "../../config.js";
import { KEY_FILE } from "../../domain/accounts/credential-key.js";
import type { DatabaseDescription } from "../../domain/operations/describe-database.js";
import { fail, messageOf, ok, warn, type CheckResult } from "./check.js";

type DatabaseConfig = Pick<Config, "databaseUrl" | "dataDir" | "secretKey">;

export async function describeOrFail(config: DatabaseConfig): Promise<DatabaseDescription | CheckResult> {
  const { describeDatabase } = await import("../../domain/operations/describe-database.js");
  try {
    return await describeDatabase(config);
  } catch (error) {
    const fix = config.databaseUrl
      ? "check DATABASE_URL (host, port, user, password, database) and that PostgreSQL is running and reachable"
      : `check that ${config.dataDir} holds a Sluice database (restore one with the steps in README, "Backups and upgrades")`;
    return fail("database", `the database cannot be read: ${messageOf(error)}`, fix);
  }
}

export function databaseCheck(config: DatabaseConfig, database: DatabaseDescription): CheckResult {
  const where = config.databaseUrl ? "PostgreSQL (DATABASE_URL)" : `SQLite in ${config.dataDir}`;
  if (database.unknown.length > 0) {
    return fail(
      "database",
      `${where} has migrations this release does not know (${database.unknown.join(", ")}): a newer Sluice wrote it`,
      "run that newer release, or restore a backup made with this one",
    );
  }
  if (!database.exists) return ok("database", `${where}: none yet, made at the first start`);
  if (database.pending.length > 0) {
    const applies = `${where}: the next start migrates it (${database.pending.length} pending: ${database.pending.join(", ")})`;
    return warn(
      "database",
      applies,
      config.databaseUrl ? "back it up first: pg_dump, and keep SLUICE_SECRET_KEY" : "back it up first: sluice backup <file>",
    );
  }
  return ok("database", `${where}: reachable, schema up to date`);
}

export function keyCheck(config: DatabaseConfig, database: DatabaseDescription | undefined): CheckResult {
  const opens = (key: Buffer) => database?.keyOpens(key);
  if (config.secretKey) {
    if (opens(config.secretKey) === false)
      return fail(
        "key",
        "SLUICE_SECRET_KEY is not the key the database's credentials were encrypted with",
        "set SLUICE_SECRET_KEY to the original key (the server refuses to start with this one)",
      );
    return ok("key", "SLUICE_SECRET_KEY is set" + (opens(config.secretKey) ? " and opens the database's credentials" : ""));
  }
  const path = join(config.dataDir, KEY_FILE);
  if (!existsSync(path)) {
    // Any key tells whether the database has a check value: a defined answer means it has.
    if (database && database.keyOpens(Buffer.alloc(32)) !== undefined) {
      return fail(
        "key",
        `${path} is missing, but the database holds credentials encrypted with it`,
        `restore it from the backup (<file>.key) as ${path}, mode 0600, or set SLUICE_SECRET_KEY to that key`,
      );
    }
    return ok("key", `no ${KEY_FILE} yet: the first start makes one (mode 0600)`);
  }
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    return fail(
      "key",
      `${path} is readable by others (mode ${mode.toString(8).padStart(4, "0")}): it opens every connected account's credentials`,
      `chmod 600 ${path}`,
    );
  }
  let key: Buffer;
  try {
    key = parseSecretKey(readFileSync(path, "utf8"), path);
  } catch (error) {
    return fail("key", messageOf(error), `restore ${path} from a backup (<file>.key)`);
  }
  if (opens(key) === false)
    return fail(
      "key",
      `${path} is not the key the database's credentials were encrypted with`,
      `restore the matching key file from the backup the database came from (<file>.key)`,
    );
  return ok("key", `${path} (mode 0600)`);
}
