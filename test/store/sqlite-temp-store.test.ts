// SQLite keeps its temporary b-trees (sorts, window functions: every queue claim has both) in
// memory: in a file, each one cost file system calls, and a claim took about eight times longer.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sql } from "kysely";
import { openSqlite } from "../../src/store/sqlite.js";

describe("SQLite temporary storage", () => {
  it("keeps temporary b-trees in memory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-temp-store-"));
    const store = openSqlite(dir, { checkpoints: false });
    try {
      const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(store.db);
      assert.equal(rows[0]?.temp_store, 2, "temp_store = MEMORY");
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
