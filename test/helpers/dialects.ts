// Every storage and API test runs once per dialect (Kysely-style). SQLite always; PostgreSQL
// when TEST_DATABASE_URL is set. SLUICE_TEST_DIALECTS=sqlite|postgres narrows the list.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScratchDatabase } from "../../src/store/scratch-database.js";
import type { DialectName } from "../../src/store/store.js";

export function testDialects(): DialectName[] {
  const chosen = process.env.SLUICE_TEST_DIALECTS?.split(",").map((s) => s.trim()) as DialectName[] | undefined;
  const available: DialectName[] = process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];
  const dialects = chosen ? available.filter((d) => chosen.includes(d)) : available;
  if (chosen?.includes("postgres") && !process.env.TEST_DATABASE_URL)
    throw new Error("SLUICE_TEST_DIALECTS asks for postgres but TEST_DATABASE_URL is not set");
  return dialects;
}

export const DIALECTS = testDialects();

/** SLUICE_SECRET_KEY of test servers on PostgreSQL (where it is required), as 64 hex digits. */
export const TEST_SECRET_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

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
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL as string, "sluice_t");
  return {
    dataDir,
    databaseUrl: scratch.url,
    drop: async () => {
      await scratch.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
