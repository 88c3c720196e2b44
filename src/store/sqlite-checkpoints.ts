// Checkpoints of SQLite's write-ahead log, made by a thread of their own (ADR 0017).
//
// With SQLite's default, the commit that takes the log past 1,000 pages copies them into the
// database file and syncs it, on the service's one connection: in the delivery benchmark a
// tenth of all commits took 1–27 ms that way, about 300 ms of the event loop's time in five
// seconds of load. Here the service's connection never checkpoints; a second connection in a
// worker thread does, beside the loop. PASSIVE checkpoints wait for no one, and SQLite lets
// one connection checkpoint while another writes, so nothing waits for them either.
//
// The thread starts only once the log reaches `startAtWalBytes` (most stores, tests among
// them, never need it). Should it ever exit, the service's connection checkpoints again
// itself, so the log cannot grow without bound.
import { stat } from "node:fs";
import { Worker } from "node:worker_threads";
import type SQLite from "better-sqlite3";

/** SQLite's own default threshold, 1,000 pages of 4 KiB. */
const DEFAULT_START_AT_WAL_BYTES = 4 * 1024 * 1024;
const DEFAULT_INTERVAL_MS = 100;
/** How often the log's size is looked at until the thread starts. */
const WAL_LOOK_MS = 250;
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface CheckpointOptions {
  /** Log size that starts the thread. */
  startAtWalBytes?: number;
  /** How often the thread checkpoints (when something was written since its last one). */
  intervalMs?: number;
  /** The thread's module (tests use stand-ins). */
  threadModule?: URL;
}

export interface CheckpointThreadData {
  file: string;
  intervalMs: number;
}

export interface Checkpoints {
  /** Whether the thread is running (false before the log grew enough, or after it exited). */
  readonly threadRunning: boolean;
  stop(): Promise<void>;
}

export function checkpointInThread(sqlite: SQLite.Database, file: string, options: CheckpointOptions = {}): Checkpoints {
  const startAt = options.startAtWalBytes ?? DEFAULT_START_AT_WAL_BYTES;
  const threadData: CheckpointThreadData = { file, intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS };
  const threadModule = options.threadModule ?? new URL("./checkpoint-thread.js", import.meta.url);
  let thread: Worker | undefined;
  let stopped = false;
  sqlite.pragma("wal_autocheckpoint = 0");

  const look = setInterval(() => {
    stat(`${file}-wal`, (error, info) => {
      if (error || stopped || thread || info.size < startAt) return;
      clearInterval(look);
      startThread();
    });
  }, WAL_LOOK_MS);
  look.unref();

  function startThread(): void {
    const started = new Worker(threadModule, { workerData: threadData });
    started.unref();
    started.on("error", () => undefined); // 'exit' follows
    started.on("exit", () => {
      thread = undefined;
      if (!stopped && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
    });
    thread = started;
  }

  return {
    get threadRunning() {
      return thread !== undefined;
    },
    async stop() {
      stopped = true;
      clearInterval(look);
      // Its connection closes with it, so the service's close is the last one and leaves no log.
      await thread?.terminate();
    },
  };
}
