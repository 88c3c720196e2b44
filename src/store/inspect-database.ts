// Looks at a database without changing it: which migrations it has and the key check values
// it keeps. `sluice doctor` and `sluice backup` use it; opening the store would migrate the
// database (and on SQLite maybe VACUUM it), which is the server's business, not a check's.
import { existsSync } from "node:fs";
import { SQLite } from "./sqlite-driver.js";
import pg from "pg";
import { sqliteDatabasePath } from "./sqlite-backup.js";

export interface DatabaseInspection {
  /** False when SQLite's file is not there yet (the server makes it at first start). */
  exists: boolean;
  /** Names of the applied migrations, in order. */
  applied: string[];
  /** secret_checks rows: name → value. */
  secretChecks: Map<string, string>;
}

export interface InspectTarget {
  databaseUrl?: string;
  dataDir: string;
  /** A SQLite file other than the data directory's database (a backup). */
  sqliteFile?: string;
}

const MIGRATIONS_TABLE = "kysely_migration";

export async function inspectDatabase(target: InspectTarget): Promise<DatabaseInspection> {
  return target.databaseUrl ? inspectPostgres(target.databaseUrl) : inspectSqlite(target.sqliteFile ?? sqliteDatabasePath(target.dataDir));
}

function inspectSqlite(file: string): DatabaseInspection {
  if (!existsSync(file)) return { exists: false, applied: [], secretChecks: new Map() };
  const db = new SQLite(file, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    const has = (table: string) => db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table) !== undefined;
    const applied = has(MIGRATIONS_TABLE)
      ? (db.prepare(`select name from ${MIGRATIONS_TABLE} order by name`).all() as Array<{ name: string }>).map((r) => r.name)
      : [];
    const checks = has("secret_checks")
      ? (db.prepare("select name, value from secret_checks").all() as Array<{ name: string; value: string }>)
      : [];
    return { exists: true, applied, secretChecks: new Map(checks.map((r) => [r.name, r.value])) };
  } finally {
    db.close();
  }
}

async function inspectPostgres(url: string): Promise<DatabaseInspection> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema()",
    );
    const has = (table: string) => tables.rows.some((r) => r.name === table);
    const applied = has(MIGRATIONS_TABLE)
      ? (await client.query<{ name: string }>(`select name from ${MIGRATIONS_TABLE} order by name`)).rows.map((r) => r.name)
      : [];
    const checks = has("secret_checks")
      ? (await client.query<{ name: string; value: string }>("select name, value from secret_checks")).rows
      : [];
    return { exists: true, applied, secretChecks: new Map(checks.map((r) => [r.name, r.value])) };
  } finally {
    await client.end();
  }
}
