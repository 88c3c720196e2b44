// A migrated store on a fresh test database of one dialect (a temp SQLite folder, or a new
// PostgreSQL database), for tests that work below the HTTP API. `close` closes the store and
// drops the database, so each test file leaves nothing behind.
import { openStore, type DialectName, type OpenStoreOptions, type Store } from "../../src/store/store.js";
import { createTestDatabase, type TestDatabase } from "./dialects.js";

export interface TestStore {
  dialect: DialectName;
  database: TestDatabase;
  store: Store;
  /** Closes the store, then drops the database. */
  close(): Promise<void>;
}

export async function openTestStore(
  dialect: DialectName,
  options: Omit<OpenStoreOptions, "databaseUrl" | "dataDir"> = {},
): Promise<TestStore> {
  const database = await createTestDatabase(dialect);
  let store: Store;
  try {
    store = await openStore({ ...options, databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    dialect,
    database,
    store,
    async close() {
      await store.close();
      await database.drop();
    },
  };
}
