// A pool of runner child processes, keyed by account: runners are never shared between
// accounts, a few warm ones are kept per account and evicted when idle, each runs one request
// at a time, and a runner that failed, timed out or ran out of memory is killed and replaced.
// It knows nothing about components: callers say what to run (a message type and payload),
// so the workflow runtime reuses it.
import { fork, type ChildProcess } from "node:child_process";
import type { ExecutionFailure } from "./contract.js";
import type { ChildMessage, ErrorData } from "./child/protocol.js";

export interface ProcessPoolOptions {
  /** The runner entry script (compiled JavaScript). */
  script: string;
  /** Node flags for an account's runners (permission model, allowed folders). */
  execArgv(key: string): string[];
  args?: string[];
  /** The runner's environment: empty but for what Node reads at startup (extra CA certificates). */
  env?: Record<string, string>;
  memoryMb: number;
  maxPerKey?: number;
  maxIdlePerKey?: number;
  /** Idle runners kept across all accounts; the longest idle is stopped beyond it. */
  maxIdleTotal?: number;
  idleMs?: number;
  /** How long a runner beyond maxIdlePerKey may stay idle before it is stopped. */
  extraIdleMs?: number;
  /** Called when a runner is started (for tests and metrics). */
  onSpawn?(key: string, pid: number | undefined): void;
  /** Where runners are recorded so a restarted service can stop orphans (runner-registry.ts). */
  registry?: { record(pid: number): void; forget(pid: number): void };
}

export type PoolOutcome = { ok: true; result: unknown } | { ok: false; failure: ExecutionFailure; validation?: boolean };

export interface ProcessPool {
  run(key: string, request: { type: string; payload: unknown }, options: { timeoutMs: number; onEvent?: (event: unknown) => void }): Promise<PoolOutcome>;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  settle(outcome: PoolOutcome & { recycle?: boolean }): void;
  onEvent?: (event: unknown) => void;
}

interface Runner {
  key: string;
  child: ChildProcess;
  ready: Promise<boolean>;
  busy: boolean;
  dead: boolean;
  stderr: string;
  pending?: Pending;
  idleTimer?: NodeJS.Timeout;
  idleSince: number;
}

const STDERR_TAIL = 4096;
let nextId = 1;

function failure(kind: ExecutionFailure["kind"], message: string): ExecutionFailure {
  const name = { error: "Error", timeout: "TimeoutError", memory: "MemoryError", crash: "RunnerCrashError" }[kind];
  return { kind, name, message, stack: `${name}: ${message}` };
}

export function createProcessPool(options: ProcessPoolOptions): ProcessPool {
  const maxPerKey = options.maxPerKey ?? 4;
  const maxIdlePerKey = options.maxIdlePerKey ?? 2;
  const idleMs = options.idleMs ?? 60_000;
  const maxIdleTotal = options.maxIdleTotal ?? 32;
  const extraIdleMs = options.extraIdleMs ?? 2000;
  const runners = new Map<string, Set<Runner>>();
  const waiters = new Map<string, Array<(runner: Runner | undefined) => void>>();
  let closed = false;

  const setOf = (key: string) => {
    let set = runners.get(key);
    if (!set) runners.set(key, (set = new Set()));
    return set;
  };

  function spawn(key: string): Runner {
    const child = fork(options.script, options.args ?? [], {
      env: { ...options.env },
      execArgv: [...options.execArgv(key), `--max-old-space-size=${options.memoryMb}`],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    let markReady: (ok: boolean) => void = () => {};
    const runner: Runner = { key, child, busy: true, dead: false, stderr: "", idleSince: 0, ready: new Promise((r) => (markReady = r)) };
    setOf(key).add(runner);
    const pid = child.pid;
    if (pid !== undefined) options.registry?.record(pid);
    options.onSpawn?.(key, pid);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      runner.stderr = (runner.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on("message", (message: ChildMessage) => {
      if (message?.type === "ready") return markReady(true);
      const pending = runner.pending;
      if (!pending || !("id" in message)) {
        if (message?.type === "failed" && message.recycle) kill(runner);
        return;
      }
      if (message.id !== pending.id) return;
      if (message.type === "event") pending.onEvent?.(message.event);
      else if (message.type === "done") pending.settle({ ok: true, result: message.result, recycle: message.recycle });
      else if (message.type === "failed") pending.settle({ ok: false, failure: errorFailure(message.error), validation: message.error.validation, recycle: message.recycle });
    });
    child.on("error", () => kill(runner));
    child.on("close", (code, signal) => {
      if (pid !== undefined) options.registry?.forget(pid);
      runner.dead = true;
      setOf(key).delete(runner);
      markReady(false);
      if (runner.idleTimer) clearTimeout(runner.idleTimer);
      const outOfMemory = /heap out of memory|Allocation failed|allocation failure/i.test(runner.stderr);
      const why = outOfMemory
        ? failure("memory", "the execution ran out of memory and was stopped")
        : failure("crash", `the runner process exited (${signal ? `signal ${signal}` : `code ${code}`}) before the execution finished`);
      runner.pending?.settle({ ok: false, failure: why, recycle: true });
      handOver(key);
    });
    return runner;
  }

  function errorFailure(error: ErrorData): ExecutionFailure {
    return { kind: "error", name: error.name, message: error.message, stack: error.stack };
  }

  function kill(runner: Runner): void {
    if (runner.dead) return;
    runner.dead = true;
    setOf(runner.key).delete(runner);
    if (runner.idleTimer) clearTimeout(runner.idleTimer);
    runner.child.kill("SIGKILL");
    handOver(runner.key);
  }

  /** Gives a freed slot to the next waiter of the key: an idle runner or a new one. */
  function handOver(key: string): void {
    const queue = waiters.get(key);
    if (!queue?.length || closed) return;
    const idle = [...setOf(key)].find((r) => !r.busy && !r.dead);
    if (idle) {
      idle.busy = true;
      if (idle.idleTimer) clearTimeout(idle.idleTimer);
      return queue.shift()!(idle);
    }
    if (setOf(key).size < maxPerKey) queue.shift()!(spawn(key));
  }

  function acquire(key: string): Promise<Runner | undefined> {
    const set = setOf(key);
    for (const runner of set) {
      if (!runner.busy && !runner.dead) {
        runner.busy = true;
        if (runner.idleTimer) clearTimeout(runner.idleTimer);
        return Promise.resolve(runner);
      }
    }
    if (set.size < maxPerKey) return Promise.resolve(spawn(key));
    return new Promise((resolve) => {
      const queue = waiters.get(key) ?? [];
      queue.push(resolve);
      waiters.set(key, queue);
    });
  }

  function release(runner: Runner, recycle: boolean): void {
    runner.pending = undefined;
    if (recycle || closed) return kill(runner);
    if (runner.dead) return;
    runner.busy = false;
    runner.idleSince = Date.now();
    // A runner beyond the warm ones is stopped only after a short idle spell, not at once:
    // under steady load a runner is often idle for a moment between requests, and stopping
    // it there meant starting a new process (the costliest thing on the ingest path) soon after.
    const idleCount = () => [...setOf(runner.key)].filter((r) => !r.busy && !r.dead).length;
    const armIdleTimer = (ms: number, extraCheck: boolean) => {
      runner.idleTimer = setTimeout(() => {
        if (runner.busy || runner.dead) return;
        if (!extraCheck || idleCount() > maxIdlePerKey) return kill(runner);
        armIdleTimer(Math.max(0, idleMs - extraIdleMs), false);
      }, ms);
      runner.idleTimer.unref();
    };
    if (idleCount() > maxIdlePerKey && idleMs > extraIdleMs) armIdleTimer(extraIdleMs, true);
    else armIdleTimer(idleMs, false);
    handOver(runner.key);
    trimIdle();
  }

  /** Many accounts each keeping warm runners must not exhaust the machine. */
  function trimIdle(): void {
    const idle = [...runners.values()].flatMap((set) => [...set]).filter((r) => !r.busy && !r.dead);
    if (idle.length <= maxIdleTotal) return;
    idle.sort((a, b) => a.idleSince - b.idleSince);
    for (const runner of idle.slice(0, idle.length - maxIdleTotal)) kill(runner);
  }

  async function run(key: string, request: { type: string; payload: unknown }, runOptions: { timeoutMs: number; onEvent?: (event: unknown) => void }): Promise<PoolOutcome> {
    if (closed) return { ok: false, failure: failure("crash", "the runner pool is closed") };
    const runner = await acquire(key);
    if (!runner) return { ok: false, failure: failure("crash", "the runner pool is closed") };
    const outcome = await new Promise<PoolOutcome & { recycle?: boolean }>((resolve) => {
      const id = nextId++;
      const settle = (value: PoolOutcome & { recycle?: boolean }) => {
        clearTimeout(timer);
        if (runner.pending?.id === id) runner.pending = undefined;
        resolve(value);
      };
      runner.pending = { id, settle, onEvent: runOptions.onEvent };
      const timer = setTimeout(() => {
        settle({ ok: false, failure: failure("timeout", `the execution timed out after ${runOptions.timeoutMs} ms`), recycle: true });
        kill(runner);
      }, runOptions.timeoutMs);
      runner.ready.then((ok) => {
        if (!ok || runner.pending?.id !== id) return;
        try {
          runner.child.send({ id, type: request.type, payload: request.payload });
        } catch {
          kill(runner);
        }
      });
    });
    release(runner, Boolean(outcome.recycle) || !outcome.ok && outcome.failure.kind !== "error");
    const { recycle: _recycle, ...result } = outcome;
    return result;
  }

  return {
    run,
    async close() {
      closed = true;
      const all = [...runners.values()].flatMap((set) => [...set]);
      await Promise.all(
        all.map(
          (runner) =>
            new Promise<void>((resolve) => {
              if (runner.child.exitCode !== null || runner.child.signalCode !== null) return resolve();
              runner.child.once("close", () => resolve());
              kill(runner);
            }),
        ),
      );
      for (const queue of waiters.values()) queue.splice(0).forEach((resolve) => resolve(undefined));
    },
  };
}
