// The thread that checkpoints SQLite's write-ahead log for the service's connection
// (sqlite-checkpoints.ts, ADR 0017). It holds no transaction between checkpoints, so the
// log can start over from its beginning once everything in it was copied.
import { parentPort, workerData } from "node:worker_threads";
import { SQLite } from "./sqlite-driver.js";
import type { CheckpointThreadData, CheckpointThreadMessage } from "./sqlite-checkpoints.js";

const { file, intervalMs } = workerData as CheckpointThreadData;
const db = new SQLite(file);
// Changes whenever another connection commits: an idle database costs no checkpoint.
const dataVersion = db.prepare("pragma data_version").pluck();
let checkpointedAt: unknown;
// While held, the service's connection finishes a checkpoint itself; messages arrive only
// between two of ours, so none is half done when "held" is answered. One more checkpoint of
// ours comes first: the service's connection then copies only what was written during it
// (a millisecond or two of writes) instead of everything since our last turn, which under
// heavy writes is megabytes copied on the service's event loop.
let held = false;

function checkpoint(): void {
  try {
    const version = dataVersion.get();
    if (version === checkpointedAt) return;
    db.pragma("wal_checkpoint(PASSIVE)");
    checkpointedAt = version;
  } catch {
    // A checkpoint that fails now (the disk, a lock) is tried again at the next turn.
  }
}

parentPort!.on("message", (message: CheckpointThreadMessage) => {
  held = message === "hold";
  if (!held) return;
  checkpoint();
  parentPort!.postMessage("held" satisfies CheckpointThreadMessage);
});

setInterval(() => {
  if (!held) checkpoint();
}, intervalMs);
