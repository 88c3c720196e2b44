// SQLite's write-ahead log is checkpointed by a thread of its own (ADR 0017): the service's
// connection never checkpoints while the thread runs, the thread starts only once the log is
// big enough, the thread checkpoints once more before it lets the connection finish one, and
// the connection takes checkpoints back should the thread exit. SQLite only:
// PostgreSQL has nothing like it.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sql } from "kysely";
import { Worker } from "node:worker_threads";
import type { CheckpointOptions, CheckpointThreadData, CheckpointThreadMessage } from "../../src/store/sqlite-checkpoints.js";
import { openSqlite, type SqliteStore } from "../../src/store/sqlite.js";
import { waitFor } from "../helpers/wait-for.js";

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function open(checkpoints: CheckpointOptions): Promise<{ store: SqliteStore; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-checkpoints-"));
  dirs.push(dir);
  const store = openSqlite(dir, { checkpoints });
  await sql`create table filler (id integer primary key, body text not null)`.execute(store.db);
  return { store, file: join(dir, "sluice.db") };
}

/** Commits `count` rows of 1 KiB, one transaction each, as a busy service would. */
async function write(store: SqliteStore, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await sql`insert into filler (body) values (${"x".repeat(1024)})`.execute(store.db);
}

async function autocheckpointPages(store: SqliteStore): Promise<number> {
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
  return rows[0]!.wal_autocheckpoint;
}

describe("SQLite checkpoints in a thread", () => {
  it("the service's connection never checkpoints; the thread copies the log into the database once it is big enough", async () => {
    const { store, file } = await open({ startAtWalBytes: 1024 * 1024, intervalMs: 20 });
    try {
      assert.equal(await autocheckpointPages(store), 0);
      const before = statSync(file).size;
      await write(store, 50); // about 100 pages of log: below the threshold
      await new Promise((resolve) => setTimeout(resolve, 600)); // two looks at the log's size
      assert.equal(store.checkpoints!.threadRunning, false, "no thread for a small log");
      assert.equal(statSync(file).size, before, "nothing checkpointed by the service's connection");

      await write(store, 500);
      await waitFor(() => store.checkpoints!.threadRunning, { what: "the thread starts" });
      // Only a checkpoint writes pages into the database file itself.
      await waitFor(() => statSync(file).size > before + 400 * 1024, { what: "the thread checkpointed the log" });
      assert.equal(await autocheckpointPages(store), 0, "the thread, not the service's connection");
      const { rows } = await sql<{ n: number }>`select count(*) as n from filler`.execute(store.db);
      assert.equal(rows[0]!.n, 550);
    } finally {
      await store.close();
    }
    assert.equal(existsSync(`${file}-wal`), false, "closing leaves no log behind: the thread's connection closed first");
  });

  it("a log past its limit starts over, however far behind the thread's checkpoints are", async (t) => {
    // The worst case of a thread that lags a writer that never pauses (a 20-minute soak grew
    // the log to 870 MB): a thread that never gets to checkpoint at all.
    const MB = 1024 * 1024;
    const steadyWrites = async (restartAtWalBytes: number) => {
      const { store, file } = await open({ startAtWalBytes: 64 * 1024, intervalMs: 3_600_000, restartAtWalBytes });
      let largest = 0;
      let size = 0;
      try {
        // About 1,000 commits a second: some 6 MB of log a second, 1.5 MB between two looks.
        const until = Date.now() + 3_000;
        while (Date.now() < until) {
          await write(store, 1);
          size = statSync(`${file}-wal`).size;
          largest = Math.max(largest, size);
          await new Promise((resolve) => setTimeout(resolve, 1)); // a paced writer; the looks run
        }
        assert.ok(store.checkpoints!.threadRunning, "the thread started");
      } finally {
        await store.close();
      }
      return { largest, size };
    };
    const unbounded = await steadyWrites(Number.POSITIVE_INFINITY);
    const bounded = await steadyWrites(MB);
    t.diagnostic(`log without a limit: ${unbounded.size} bytes at the end; with 1 MiB: at most ${bounded.largest}`);
    assert.ok(unbounded.size > 8 * MB, `without a limit the log only grew (${unbounded.size} bytes)`);
    assert.ok(bounded.largest < 5 * MB, `with a 1 MiB limit the log stayed under 5 MiB (largest ${bounded.largest} bytes)`);
  });

  it("the thread checkpoints once more before it answers a hold, so the service's connection copies little", async () => {
    // The thread's own turn never comes (an hour): only the hold makes it checkpoint.
    const { store, file } = await open({ startAtWalBytes: Number.POSITIVE_INFINITY });
    const thread = new Worker(new URL("../../src/store/checkpoint-thread.js", import.meta.url), {
      workerData: { file, intervalMs: 3_600_000 } satisfies CheckpointThreadData,
    });
    try {
      const before = statSync(file).size;
      await write(store, 200);
      const held = new Promise((resolve) => thread.once("message", resolve));
      thread.postMessage("hold" satisfies CheckpointThreadMessage);
      assert.equal(await held, "held");
      // Only a checkpoint writes pages into the database file itself.
      assert.ok(statSync(file).size > before + 150 * 1024, "the log was copied into the database before the answer");
    } finally {
      await thread.terminate();
      await store.close();
    }
  });

  it("checkpoints on the service's connection again when the thread exits", async () => {
    const { store } = await open({
      startAtWalBytes: 64 * 1024,
      threadModule: new URL("./fixtures/exiting-checkpoint-thread.js", import.meta.url),
    });
    try {
      await write(store, 100); // past the threshold: the (stand-in) thread starts and exits
      await waitFor(async () => (await autocheckpointPages(store)) === 1000, {
        what: "the connection checkpoints itself (SQLite's default of 1,000 pages)",
      });
      assert.equal(store.checkpoints!.threadRunning, false);
    } finally {
      await store.close();
    }
  });

  it("a reader opened without checkpoints leaves them to the service", async () => {
    const { store, file } = await open({ startAtWalBytes: 64 * 1024 });
    const reader = openSqlite(join(file, ".."), { checkpoints: false });
    try {
      assert.equal(reader.checkpoints, undefined);
      assert.equal(await autocheckpointPages(reader), 1000, "its connection is as SQLite opens it");
    } finally {
      await reader.close();
      await store.close();
    }
  });
});
