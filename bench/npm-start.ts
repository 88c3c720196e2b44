// `npm start` with nothing changed, timed from the command to the first healthy /healthz (the
// README's promise: at most 3 s). A first start builds when the tree changed since the last
// build and makes the data directory (database, first account): it is not counted. The timed
// starts are the next ones, on the same data directory, as a returning user's are. The server
// listens on loopback, on a port of its own.
//   node dist/bench/npm-start.js           (three samples; BENCH_NPM_STARTS=5 for more)
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_ADMIN_TOKEN } from "./lib/processes.js";
import { repoRoot } from "./lib/paths.js";
import { runDirectly } from "./lib/run-directly.js";

export interface NpmStartReport {
  node: string;
  /** Milliseconds from `npm start` to the first 200 from /healthz, one per sample. */
  samplesMs: number[];
  medianMs: number;
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Stops `npm start` and the server below it (a process group of their own). */
function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    process.kill(-child.pid!, "SIGTERM");
    setTimeout(() => child.exitCode === null && child.signalCode === null && process.kill(-child.pid!, "SIGKILL"), 10_000).unref();
  });
}

/** One `npm start` until /healthz answers 200: its milliseconds. */
async function timeOneStart(dataDir: string): Promise<number> {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: "127.0.0.1", SLUICE_DATA_DIR: dataDir, SLUICE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN };
  const startedAt = performance.now();
  const child = spawn(npm, ["start", "--silent"], { cwd: repoRoot(), env, stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const url = `http://127.0.0.1:${port}/healthz`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with code ${child.exitCode}: ${stderr.trim()}`);
      if (await healthy(url)) return performance.now() - startedAt;
      if (performance.now() - startedAt > 300_000) throw new Error(`npm start was not healthy within 300 s: ${stderr.trim()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await stopGroup(child);
  }
}

export async function runNpmStartBench(samples = Number(process.env.BENCH_NPM_STARTS ?? 3)): Promise<NpmStartReport> {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-bench-start-"));
  try {
    await timeOneStart(dataDir); // builds when something changed, makes the data directory: not counted
    const samplesMs: number[] = [];
    for (let i = 0; i < samples; i++) samplesMs.push(Math.round(await timeOneStart(dataDir)));
    const sorted = [...samplesMs].sort((a, b) => a - b);
    return { node: process.version, samplesMs, medianMs: sorted[Math.floor(sorted.length / 2)]! };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runDirectly(import.meta.url, () => runNpmStartBench());
