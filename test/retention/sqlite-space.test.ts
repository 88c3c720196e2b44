// SQLite gives space back: a new database uses incremental auto_vacuum, one made before it is
// rewritten once at open (and says so in the log), and a retention pass that pruned many rows
// leaves a smaller file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { SQLite } from "../../src/store/sqlite-driver.js";
import { sql } from "kysely";
import { DAY_MS, pruneExpired } from "../../src/domain/retention/prune-expired.js";
import { FakeClock } from "../../src/lib/clock.js";
import { newTimeOrderedId } from "../../src/lib/ids.js";
import { openStore } from "../../src/store/store.js";
import { testContext } from "../helpers/test-context.js";

const autoVacuumOf = (file: string) => {
  const sqlite = new SQLite(file, { readonly: true });
  try {
    return sqlite.pragma("auto_vacuum", { simple: true });
  } finally {
    sqlite.close();
  }
};

describe("SQLite gives space back", () => {
  it("a new database uses incremental auto_vacuum; pruning many rows shrinks the file", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "sluice-space-"));
    const file = join(dataDir, "sluice.db");
    const store = await openStore({ dataDir });
    try {
      const clock = new FakeClock(Date.UTC(2026, 5, 1));
      const old = clock.now() - 40 * DAY_MS;
      const body = JSON.stringify({ padding: "x".repeat(2000) });
      for (let chunk = 0; chunk < 20; chunk++) {
        await store.db.transaction().execute(async (tx) => {
          const rows = Array.from({ length: 100 }, (_, i) => ({
            id: newTimeOrderedId("del", old + chunk * 100 + i),
            user_id: "u_x",
            listener_id: "wh_x",
            emitter_id: "dc_x",
            event_id: "1-0",
            stream: "",
            event: body,
            hops: 0,
            status: "succeeded" as const,
            attempts: 1,
            next_attempt_at: null,
            last_attempt_at: old,
            created_at: old,
            updated_at: old,
          }));
          await tx.insertInto("deliveries").values(rows).execute();
        });
      }
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store.db);
      const before = statSync(file).size;
      assert.ok(before > 4_000_000, `the rows take room: ${before} bytes`);

      const ctx = testContext(store, { clock });
      const counts = await pruneExpired(ctx, { pauseMs: 0, freePages: store.freePages });
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store.db);
      const afterPrune = statSync(file).size;

      assert.equal(counts.deliveries, 2000);
      assert.ok(counts.freedPages > 0);
      assert.ok(afterPrune < before / 4, `the file shrank from ${before} to ${afterPrune} bytes`);
      const mode = await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(store.db);
      assert.equal(mode.rows[0]?.auto_vacuum, 2, "incremental");
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a database made before auto_vacuum is rewritten once at open, and the log says how long it took", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "sluice-space-"));
    const file = join(dataDir, "sluice.db");
    try {
      const legacy = new SQLite(file);
      legacy.pragma("journal_mode = WAL");
      legacy.exec("create table made_before (x text)");
      legacy.close();
      assert.equal(autoVacuumOf(file), 0);

      const lines: string[] = [];
      const logger = { info: (_fields: object, message: string) => void lines.push(message) };
      const first = await openStore({ dataDir, logger });
      await first.close();
      assert.equal(autoVacuumOf(file), 2);
      assert.equal(lines.filter((line) => /VACUUM.*\d+ ms/.test(line)).length, 1, lines.join("\n"));

      const second = await openStore({ dataDir, logger });
      await second.close();
      assert.equal(lines.length, 1, "only once");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
