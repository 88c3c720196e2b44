// Servers under test run in their own processes, so the load generator (this process) does
// not share their event loop. Each prints where it listens; we wait for that line.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { compiledRoot } from "./paths.js";

export interface RunningServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function waitForLine(child: ChildProcess, match: (line: string) => string | undefined, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 60 s`)), 60_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const found = match(line);
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with code ${code} before it was ready`));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
}

/** A bare node:http server: the physical baseline every ratio is measured against. */
export async function startBareServer(): Promise<RunningServer> {
  const child = spawn(process.execPath, [join(compiledRoot(), "bench", "lib", "bare-http-server.js")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await waitForLine(child, (line) => (line.startsWith("listening ") ? line.slice(10) : undefined), "bare server");
  return { url, child, stop: stopper(child) };
}

/** The admin token of every benchmarked Sluice (at least 32 characters, as Sluice requires). */
export const BENCH_ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";

export interface SluiceOptions {
  /** `--role` (default all); a process without the api role has no url (""). */
  role?: string;
  /** Shared by the processes of one deployment; made (and removed at stop) when absent. */
  dataDir?: string;
}

/** Sluice itself, exactly as `npm start` runs it, on a fresh data directory. */
export async function startSluiceServer(
  env: Record<string, string> = {},
  options: SluiceOptions = {},
): Promise<RunningServer & { dataDir: string }> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "sluice-bench-"));
  // BENCH_SLUICE_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=prof", profiles the service.
  const nodeArgs = process.env.BENCH_SLUICE_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(compiledRoot(), "src", "cli", "main.js"), "serve", ...(options.role ? ["--role", options.role] : [])],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        PORT: "0",
        HOST: "127.0.0.1",
        SLUICE_DATA_DIR: dataDir,
        SLUICE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        // Required with DATABASE_URL (credentials of connected accounts); any 32 bytes do here.
        SLUICE_SECRET_KEY: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        SLUICE_ALLOW_PRIVATE_EGRESS: "true",
        SLUICE_API_RATE_LIMIT_PER_MINUTE: "100000000",
        LOG_LEVEL: "info",
        ...env,
      },
    },
  );
  const url = await waitForLine(
    child,
    (line) => {
      if (!line.includes("sluice started")) return undefined;
      try {
        return (JSON.parse(line).url as string | undefined) ?? "";
      } catch {
        return undefined;
      }
    },
    "sluice",
  );
  const stop = stopper(child);
  // A bench leaves nothing behind: each run's database is hundreds of megabytes at most, but
  // runs add up on a machine that benchmarks all day.
  const removeDataDir = options.dataDir === undefined;
  return {
    url,
    child,
    dataDir,
    stop: () => stop().then(() => (removeDataDir ? rmSync(dataDir, { recursive: true, force: true }) : undefined)),
  };
}
