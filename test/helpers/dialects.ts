// Every storage and API test runs once per dialect (Kysely-style). SQLite always; PostgreSQL
// when TEST_DATABASE_URL is set. SLUICE_TEST_DIALECTS=sqlite|postgres narrows the list.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { randomString } from "../../src/lib/ids.js";
import type { DialectName } from "../../src/store/store.js";

export function testDialects(): DialectName[] {
  const chosen = process.env.SLUICE_TEST_DIALECTS?.split(",").map((s) => s.trim()) as DialectName[] | undefined;
  const available: DialectName[] = process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];
  const dialects = chosen ? available.filter((d) => chosen.includes(d)) : available;
  if (chosen?.includes("postgres") && !process.env.TEST_DATABASE_URL) throw new Error("SLUICE_TEST_DIALECTS asks for postgres but TEST_DATABASE_URL is not set");
  return dialects;
}

export const DIALECTS = testDialects();

export interface TestDatabase {
  dataDir: string;
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file: a temp SQLite dir, or a new PostgreSQL database. */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-test-"));
  if (dialect === "sqlite") {
    return { dataDir, databaseUrl: undefined, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TEST_DATABASE_URL as string;
  const name = `sluice_t_${randomString(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
