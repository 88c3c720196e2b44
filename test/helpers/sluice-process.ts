// Runs the compiled `sluice` command as a child process, the way an operator does, against a
// test database. The CLI is found relative to this compiled file, so the tests work from
// dist/test/... and dist-NAME/test/... alike.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TEST_SECRET_KEY, type TestDatabase } from "./dialects.js";
import { join } from "node:path";

export const CLI_PATH = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

/** Only what the command needs: nothing of the test runner's own environment leaks in. */
/**
 * What a client command needs and no more: a server and key from the environment, and HOME and
 * XDG_CONFIG_HOME in `dir`, so nothing of the user's own configuration is read.
 */
export function clientEnv(dir: string, apiUrl: string, apiKey: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), SLUICE_API_URL: apiUrl, SLUICE_API_KEY: apiKey };
}

export function cliEnv(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOST: "127.0.0.1",
    PORT: "0",
    SLUICE_DATA_DIR: database.dataDir,
    LOG_LEVEL: "info",
    ...extra,
  };
  if (database.databaseUrl) Object.assign(env, { DATABASE_URL: database.databaseUrl, SLUICE_SECRET_KEY: TEST_SECRET_KEY });
  return env;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion (with a deadline, so a hang fails the test instead of stalling it). */
export function runCli(args: string[], env: Record<string, string>, cwd: string, deadlineMs = 60_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`sluice ${args.join(" ")} did not finish within ${deadlineMs} ms\n${stdout}\n${stderr}`));
    }, deadlineMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface RunningServer {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:41234; "" for a process without the api role. */
  origin: string;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit, or rejects past the deadline. */
  stop(signal?: NodeJS.Signals, deadlineMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Starts `sluice serve` and waits for its "sluice started" log line, which carries the URL (with the api role). */
export function startServer(
  env: Record<string, string>,
  cwd: string | undefined,
  args: string[] = [],
  deadlineMs = 60_000,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, "serve", ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let started = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.on("exit", (code, signal) => done({ code, signal })),
    );
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`sluice serve did not start within ${deadlineMs} ms\n${stdout}\n${stderr}`));
    }, deadlineMs);
    void exited.then(({ code }) => {
      if (started) return;
      clearTimeout(timer);
      reject(new Error(`sluice serve exited with ${code} before starting\n${stdout}\n${stderr}`));
    });
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (started) return;
      for (const line of stdout.split("\n")) {
        let entry: { msg?: string; url?: string } | undefined;
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        if (entry?.msg === "sluice started") {
          started = true;
          clearTimeout(timer);
          const origin = entry.url ?? "";
          resolve({
            child,
            origin,
            stdout: () => stdout,
            stderr: () => stderr,
            async stop(signal = "SIGTERM", stopDeadlineMs = 30_000) {
              const since = Date.now();
              child.kill(signal);
              let killer: NodeJS.Timeout | undefined;
              const overdue = new Promise<never>((_, fail) => {
                killer = setTimeout(() => {
                  child.kill("SIGKILL");
                  fail(new Error(`sluice did not exit within ${stopDeadlineMs} ms of ${signal}`));
                }, stopDeadlineMs);
              });
              try {
                const result = await Promise.race([exited, overdue]);
                return { ...result, ms: Date.now() - since };
              } finally {
                clearTimeout(killer);
              }
            },
          });
          return;
        }
      }
    });
  });
}
