// Stand-in runners for the limits tests: small Node programs started as the pool will start
// runners (the command wrapped by the limits, attached right after spawning). Those that
// misbehave wait for "go" on stdin, sent once the handle is ready, as the pool sends user
// code only to a ready runner.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import type { RunnerHandle, RunnerLimits } from "../../../src/runtime/limits/runner-limits.js";
import { waitFor } from "../../helpers/wait-for.js";

/** Whether a process is gone (a zombie is, for what it can do). */
export function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Waits for a condition with a bounded poll. */
export async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  await waitFor(condition, { what, timeoutMs: ms, intervalMs: 20 });
}

const onGo = (body: string) => `process.stdin.once("data", () => { ${body} });`;

/** Keeps 1 MB Buffers, filled so that their pages are really used, up to `mb`; then holds them. */
export const allocate = (mb: number) =>
  onGo(`
  const kept = [];
  const step = () => {
    for (let i = 0; i < 8 && kept.length < ${mb}; i++) kept.push(Buffer.alloc(1 << 20, 1));
    if (kept.length < ${mb}) return setImmediate(step);
    console.log("allocated " + kept.length + " MB");
    setInterval(() => {}, 1000);
  };
  step();`);

/** Starts worker threads until one fails or `count` run; prints how many and the failure. */
export const startThreads = (count: number) =>
  onGo(`
  const { Worker } = require("node:worker_threads");
  let started = 0;
  const report = (failure) => { console.log(JSON.stringify({ started, failure })); setInterval(() => {}, 1000); };
  const next = () => {
    if (started >= ${count}) return report(null);
    try {
      const worker = new Worker("setInterval(() => {}, 1000)", { eval: true });
      worker.on("online", () => { started++; next(); });
      worker.on("error", (e) => report(e.code || e.message));
    } catch (e) { report(e.code || e.message); }
  };
  next();`);

/** Opens /dev/null until it fails or `count` are open; prints how many and the failure. */
export const openFiles = (count: number) => `
  const fs = require("node:fs");
  let opened = 0, failure = null;
  try { for (; opened < ${count}; opened++) fs.openSync("/dev/null", "r"); } catch (e) { failure = e.code; }
  console.log(JSON.stringify({ opened, failure }));`;

/** Exits at once, leaving a process behind (reparented, no longer its descendant). */
export const leaveSleepBehind = onGo(
  `require("node:child_process").spawn("sleep", ["300"], { detached: true, stdio: "ignore" }).unref(); process.exit(0);`,
);

/** Burns CPU once told to. */
export const busy = onGo(`for (;;) {}`);
export const idle = `setInterval(() => {}, 1000); console.log("idle");`;
/** Idle while an execution would run, then a timer left behind burns CPU (a runner after run()). */
export const burnAfterGo = onGo(`setInterval(() => { const end = Date.now() + 40; while (Date.now() < end); }, 50);`);

export interface Runner {
  child: ChildProcess;
  handle: RunnerHandle;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  go(): void;
}

/** Starts this Node running `code`, inside `sandbox` (a command prefix) if given, as the pool will. */
export function startRunner(limits: RunnerLimits, code: string, sandbox: string[] = []): Runner {
  const [command, ...args] = [...sandbox, process.execPath, "-e", code] as unknown as [string, ...string[]];
  const wrapped = limits.wrapCommand(command, args);
  const child = spawn(wrapped.command, wrapped.args, { stdio: ["pipe", "pipe", "pipe"] });
  const handle = limits.attach(child.pid!);
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, handle, exit, output: () => output, go: () => child.stdin!.write("go\n") };
}

/** Kills what a test left running and stops its handle. */
export async function cleanUp(runners: Runner[]): Promise<void> {
  for (const runner of runners) runner.child.kill("SIGKILL");
  await Promise.all(
    runners.map(async (runner) => {
      await runner.exit;
      await runner.handle.stop();
    }),
  );
}

/** A runner's sandbox as the pool will start it: bwrap, with bwrap as init of a pid namespace. */
export const BWRAP = ["bwrap", "--unshare-pid", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"];

/** Why bwrap cannot be used on this machine, if it cannot. */
export function bwrapUnavailable(): string | undefined {
  const result = spawnSync(BWRAP[0]!, [...BWRAP.slice(1), process.execPath, "--version"], { encoding: "utf8" });
  if (result.error) return `bwrap is not available here (${result.error.message})`;
  if (result.status !== 0) return `bwrap cannot make a sandbox here (exit ${result.status}: ${result.stderr.trim()})`;
  return undefined;
}
