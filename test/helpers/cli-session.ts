// Runs a long-lived client command (events -f, dev) as a child process, and waits for what
// it prints instead of sleeping.
import { spawn, type ChildProcess } from "node:child_process";
import { CLI_PATH } from "./sluice-process.js";

export interface CliSession {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` appears in the stream, or rejects past the deadline. */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp, deadlineMs?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startCli(args: string[], env: Record<string, string>, cwd: string): CliSession {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
  const text = { stdout: "", stderr: "" };
  const listeners = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const changed = () => {
    for (const listener of listeners) listener();
  };
  child.stdout!.on("data", (chunk) => ((text.stdout += chunk), changed()));
  child.stderr!.on("data", (chunk) => ((text.stderr += chunk), changed()));
  child.on("close", changed);
  return {
    child,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    waitFor(stream, pattern, deadlineMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(text[stream])) return done(undefined);
          if (child.exitCode !== null)
            return done(
              new Error(`sluice ${args.join(" ")} exited (${child.exitCode}) before printing ${pattern}\n${text.stdout}\n${text.stderr}`),
            );
        };
        const timer = setTimeout(
          () =>
            done(new Error(`sluice ${args.join(" ")} did not print ${pattern} within ${deadlineMs} ms\n${text.stdout}\n${text.stderr}`)),
          deadlineMs,
        );
        const done = (error: Error | undefined) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        listeners.add(check);
        check();
      });
    },
    async stop(signal = "SIGINT") {
      if (child.exitCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
