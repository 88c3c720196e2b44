// Checkpoints of SQLite's write-ahead log, made by a thread of their own (ADR 0017).
//
// With SQLite's default, the commit that takes the log past 1,000 pages copies them into the
// database file and syncs it, on the service's one connection: in the delivery benchmark a
// tenth of all commits took 1–27 ms that way, about 300 ms of the event loop's time in five
// seconds of load. Here the service's connection leaves checkpoints to a second connection in
// a worker thread, beside the loop. PASSIVE checkpoints wait for no one, and SQLite lets
// one connection checkpoint while another writes, so nothing waits for them either.
//
// The thread starts only once the log reaches `startAtWalBytes` (most stores, tests among
// them, never need it). Should it ever exit, the service's connection checkpoints again
// itself, so the log cannot grow without bound.
//
// The log starts over from its beginning only at a write that finds all of it copied, and
// under steady writes the thread's checkpoints need never catch up with the writer, so the
// log would only grow (ADR 0017 has the figures). So once it passes `restartAtWalBytes`, the
// thread is held, the service's connection copies the rest itself between two transactions
// (the thread copied nearly all of it already), and its next write starts the log over;
// `journal_size_limit` then cuts the file back.
import { stat } from "node:fs";
import { Worker } from "node:worker_threads";
import type SQLite from "better-sqlite3";

/** SQLite's own default threshold, 1,000 pages of 4 KiB. */
const DEFAULT_START_AT_WAL_BYTES = 4 * 1024 * 1024;
const DEFAULT_INTERVAL_MS = 100;
/** Log size past which the service's connection finishes a checkpoint so the log restarts. */
const DEFAULT_RESTART_AT_WAL_BYTES = 64 * 1024 * 1024;
/** What a restarted log's file is cut back to. */
const JOURNAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;
/** How often the log's size is looked at. */
const WAL_LOOK_MS = 250;
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface CheckpointOptions {
  /** Log size that starts the thread. */
  startAtWalBytes?: number;
  /** Log size past which the log is made to start over (see above). */
  restartAtWalBytes?: number;
  /** How often the thread checkpoints (when something was written since its last one). */
  intervalMs?: number;
  /** The thread's module (tests use stand-ins). */
  threadModule?: URL;
}

export interface CheckpointThreadData {
  file: string;
  intervalMs: number;
}

/** "hold" and "resume" go to the thread; it answers "held" once it makes no checkpoint. */
export type CheckpointThreadMessage = "hold" | "held" | "resume";

export interface Checkpoints {
  /** Whether the thread is running (false before the log grew enough, or after it exited). */
  readonly threadRunning: boolean;
  stop(): Promise<void>;
}

/**
 * `betweenTransactions` runs its function on the service's connection when no transaction is
 * open on it (a checkpoint inside one could not copy what that transaction reads).
 */
export function checkpointInThread(
  sqlite: SQLite.Database,
  file: string,
  betweenTransactions: (fn: () => unknown) => Promise<unknown>,
  options: CheckpointOptions = {},
): Checkpoints {
  const startAt = options.startAtWalBytes ?? DEFAULT_START_AT_WAL_BYTES;
  const restartAt = options.restartAtWalBytes ?? DEFAULT_RESTART_AT_WAL_BYTES;
  const threadData: CheckpointThreadData = { file, intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS };
  const threadModule = options.threadModule ?? new URL("./checkpoint-thread.js", import.meta.url);
  let thread: Worker | undefined;
  let threadStarted = false; // once: a thread that exited leaves checkpoints to the connection
  let stopped = false;
  let restarting = false;
  sqlite.pragma("wal_autocheckpoint = 0");
  sqlite.pragma(`journal_size_limit = ${Math.min(JOURNAL_SIZE_LIMIT_BYTES, restartAt)}`);

  const look = setInterval(() => {
    stat(`${file}-wal`, (error, info) => {
      if (error || stopped) return;
      if (!threadStarted && info.size >= startAt) startThread();
      else if (thread && info.size > restartAt && !restarting) restartLog();
    });
  }, WAL_LOOK_MS);
  look.unref();

  function restartLog(): void {
    const held = thread!;
    restarting = true;
    hold(held)
      .then(() =>
        betweenTransactions(() => {
          if (!stopped && sqlite.open) sqlite.pragma("wal_checkpoint(PASSIVE)");
        }),
      )
      .catch(() => undefined) // tried again at the next look
      .finally(() => {
        held.postMessage("resume" satisfies CheckpointThreadMessage);
        restarting = false;
      });
  }

  function startThread(): void {
    threadStarted = true;
    const started = new Worker(threadModule, { workerData: threadData });
    started.unref();
    started.on("error", () => undefined); // 'exit' follows
    started.on("exit", () => {
      thread = undefined;
      if (!stopped && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
    });
    thread = started;
  }

  /** Resolves once the thread makes no checkpoint until it is told to resume. */
  function hold(held: Worker): Promise<void> {
    return new Promise((resolve, reject) => {
      const answered = (message: CheckpointThreadMessage) => {
        if (message !== "held") return;
        held.off("exit", exited);
        held.off("message", answered);
        resolve();
      };
      const exited = () => {
        held.off("message", answered);
        reject(new Error("the checkpoint thread exited"));
      };
      held.on("message", answered);
      held.once("exit", exited);
      held.postMessage("hold" satisfies CheckpointThreadMessage);
    });
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
