// A pool of runner child processes, keyed by account: runners are never shared between
// accounts, a few warm ones are kept per account and evicted when idle, each runs one request
// at a time (more may wait in it, handed over in one message, see MAX_BATCH), and a runner
// that failed, timed out or ran out of memory is killed and replaced.
// It knows nothing about components: callers say what to run (a message type and payload),
// so the workflow runtime reuses it.
import type { ChildProcess } from "node:child_process";
import type { Duplex } from "node:stream";
import type { ExecutionFailure } from "./code-runner.js";
import type { ChildMessage, ErrorData } from "../runner/protocol/messages.js";
import type { LaunchRunner } from "./runner-launcher.js";
import { createRunnerChannel, type RunnerChannel } from "./runner-channel.js";
import { checkRunnerMessage } from "./runner-messages.js";
import { createRunnerCallGate, type RunnerCallGate, type ServiceCallTable } from "./runner-calls.js";
import type { IdleCpuMeter, IdleCpuSampler } from "./limits/idle-cpu.js";
import type { RunnerHandle, RunnerLimits } from "./limits/runner-limits.js";

/** A runner starts in well under a second; this bounds a start that hangs (a busy host may take seconds). */
const START_TIMEOUT_MS = 30_000;

export interface ProcessPoolOptions {
  /** Starts a runner process for an account (runner-launcher.ts). */
  launch: LaunchRunner;
  /** The largest message a runner may send; a larger one ends that runner. */
  maxMessageBytes?: number;
  /** What is wrong with a request's result (by request type), or undefined when it is fine. */
  checkResult?(type: string, result: unknown, bytes: number): string | undefined;
  /** What is wrong with an event sent while a request runs, or undefined. */
  checkEvent?(event: unknown): string | undefined;
  /** What runners may ask the service while a request runs (runner-calls.ts); the key is the account. */
  serviceCalls?: ServiceCallTable;
  /** A call's handler failed for a reason other than a ServiceError (for the log). */
  onCallFault?(error: unknown): void;
  maxPerKey?: number;
  maxIdlePerKey?: number;
  /** Idle runners kept across all accounts; the longest idle is stopped beyond it. */
  maxIdleTotal?: number;
  idleMs?: number;
  /** How long a runner beyond maxIdlePerKey may stay idle before it is stopped. */
  extraIdleMs?: number;
  /**
   * How long a runner may take to start (its ready message, and its limits in place). One that
   * takes longer is stopped and fails the oldest waiting job, as one that exits before it is
   * ready does: a start that hangs must not hold its account's executions forever.
   */
  startTimeoutMs?: number;
  /**
   * Called when a runner's execution ended (done, failed) and it lives on: `queued` are the ids
   * of the executions it still has, the next of which may already run.
   */
  onExecutionEnd?(child: ChildProcess, queued: ReadonlySet<number>): void;
  /** Called when a runner is started (for tests and metrics). */
  onSpawn?(key: string, pid: number | undefined): void;
  /** About how long a job may wait behind others in its runner (BATCH_BUDGET_MS by default). */
  batchBudgetMs?: number;
  /** Where runners are recorded so a restarted service can stop orphans (runner-registry.ts). */
  registry?: { record(pid: number): void; forget(pid: number): void };
  /** Caps and measures each runner's process tree: memory, threads, CPU time (limits/). */
  limits?: RunnerLimits;
  /** CPU runners use while idle: reported for the account, and a runner past the budget replaced. */
  idleCpu?: IdleCpuOptions;
}

export interface IdleCpuOptions {
  sampler: IdleCpuSampler;
  /** Idle CPU a runner may use in its life before it is replaced, in ms. */
  budgetMs: number;
  /** Idle CPU of an account's runner, reported in amounts of at least IDLE_CPU_REPORT_MS. */
  onIdleCpu(key: string, ms: number): void;
}

export type PoolOutcome = { ok: true; result: unknown } | { ok: false; failure: ExecutionFailure; validation?: boolean };

export interface ProcessPool {
  run(
    key: string,
    request: { type: string; payload: unknown },
    options: { timeoutMs: number; onEvent?: (event: unknown) => void },
  ): Promise<PoolOutcome>;
  close(): Promise<void>;
}

interface Job {
  id: number;
  key: string;
  request: { type: string; payload: unknown };
  timeoutMs: number;
  onEvent?: (event: unknown) => void;
  settle(outcome: PoolOutcome): void;
}

interface Runner {
  key: string;
  child: ChildProcess;
  channel: RunnerChannel;
  /** The runner said it is ready; `ready` once its limits are in place too. */
  announced: boolean;
  ready: boolean;
  dead: boolean;
  stderr: string;
  /** Jobs sent to the runner, in order; only the first can have started (the child runs them one by one). */
  inflight: Job[];
  headStartedAt: number;
  headTimer?: NodeJS.Timeout;
  startTimer?: NodeJS.Timeout;
  /** The runner's caps and CPU figure, when the pool has limits. */
  limits?: RunnerHandle;
  idleMeter?: IdleCpuMeter;
  idleCpuMs: number;
  /** Idle CPU measured but not yet reported (small amounts are added up first). */
  unreportedIdleCpuMs: number;
  idleTimer?: NodeJS.Timeout;
  idleSince: number;
  /** Calls of this runner to the service, made on its first call. */
  calls?: RunnerCallGate;
}

const STDERR_TAIL = 4096;
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Idle CPU is reported in amounts of at least this (each report is a write of the account's usage). */
const IDLE_CPU_REPORT_MS = 100;
/**
 * A runner may hold several jobs, running the first and the others queued behind it, handed
 * over several in one message: each message to a sleeping process wakes it, which on a loaded
 * machine cost more than the short execution it carried. A queued job waits for the ones
 * ahead of it, so a runner holds only as many as the account's recent executions get through
 * in the batch budget: short ones (an HTTP source that emits and responds) up to 64,
 * slow ones (awaiting an API) one, with more runners started instead. The budget bounds the
 * wait; the cap only bounds a message.
 */
const MAX_BATCH = 64;
const BATCH_BUDGET_MS = 4;
/**
 * A runner that went idle is woken again for concurrent jobs no sooner than this, unless a
 * full batch waits for it. Under load the jobs of that moment then share one message instead
 * of each waking the runner; a job waits at most this long, and not at all when the runner
 * had been idle longer or when it is the only one waiting.
 */
const WAKE_GAP_MS = 1;
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
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const batchBudgetMs = options.batchBudgetMs ?? BATCH_BUDGET_MS;
  const runners = new Map<string, Set<Runner>>();
  /** Jobs of each key not yet sent to a runner, oldest first. */
  const backlog = new Map<string, Job[]>();
  /** Recent execution time per key (moving average, ms): how long a batch may be. */
  const recentMs = new Map<string, number>();
  let dispatchScheduled = false;
  let deferredDispatch: NodeJS.Timeout | undefined;
  let closed = false;

  const setOf = (key: string) => {
    let set = runners.get(key);
    if (!set) runners.set(key, (set = new Set()));
    return set;
  };
  const backlogOf = (key: string) => {
    let jobs = backlog.get(key);
    if (!jobs) backlog.set(key, (jobs = []));
    return jobs;
  };
  const isIdle = (runner: Runner) => runner.ready && !runner.dead && runner.inflight.length === 0;

  function spawn(key: string): Runner {
    const { child, cleanup } = options.launch(key);
    // The channel's callbacks run on later turns of the event loop, once `runner` is set.
    const channel = createRunnerChannel(child.stdio[3] as Duplex, {
      maxMessageBytes: options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
      onMessage: (message, bytes) => onMessage(runner, message, bytes),
      onViolation: (reason) => violation(runner, reason),
    });
    const runner: Runner = {
      key,
      child,
      channel,
      announced: false,
      ready: false,
      dead: false,
      stderr: "",
      inflight: [],
      headStartedAt: 0,
      idleSince: 0,
      idleCpuMs: 0,
      unreportedIdleCpuMs: 0,
    };
    if (child.pid !== undefined && options.limits) {
      runner.limits = options.limits.attach(child.pid);
      const idleCpu = options.idleCpu;
      if (idleCpu) runner.idleMeter = idleCpu.sampler.track(runner.limits, (ms) => onIdleCpu(runner, idleCpu, ms));
    }
    setOf(key).add(runner);
    runner.startTimer = setTimeout(() => {
      if (runner.ready || runner.dead) return;
      const why = failure("crash", `the runner did not start within ${Math.round(startTimeoutMs / 1000)} s`);
      backlogOf(key).shift()?.settle({ ok: false, failure: why });
      kill(runner, {});
    }, startTimeoutMs);
    runner.startTimer.unref();
    const pid = child.pid;
    if (pid !== undefined) options.registry?.record(pid);
    options.onSpawn?.(key, pid);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      runner.stderr = (runner.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on("error", () => kill(runner, { head: failure("crash", "the runner process failed") }));
    child.on("close", (code, signal) => {
      if (pid !== undefined) options.registry?.forget(pid);
      cleanup();
      runner.idleMeter?.untrack();
      const outOfMemory =
        runner.limits?.exitedForMemory() || /heap out of memory|Allocation failed|allocation failure/i.test(runner.stderr);
      void runner.limits?.stop();
      const why = outOfMemory
        ? failure("memory", "the execution ran out of memory and was stopped")
        : failure("crash", `the runner process exited (${signal ? `signal ${signal}` : `code ${code}`}) before the execution finished`);
      // A runner that never got ready fails the oldest waiting job, as a started one fails
      // its running job: a runner that cannot start must not be restarted forever.
      if (!runner.ready && !runner.dead) backlogOf(key).shift()?.settle({ ok: false, failure: why });
      kill(runner, { head: why });
    });
    return runner;
  }

  function onIdleCpu(runner: Runner, idleCpu: IdleCpuOptions, ms: number): void {
    runner.idleCpuMs += ms;
    runner.unreportedIdleCpuMs += ms;
    if (runner.unreportedIdleCpuMs >= IDLE_CPU_REPORT_MS) {
      idleCpu.onIdleCpu(runner.key, runner.unreportedIdleCpuMs);
      runner.unreportedIdleCpuMs = 0;
    }
    // Code left running after its executions (a busy timer) is stopped like a run past its time.
    if (runner.idleCpuMs > idleCpu.budgetMs && isIdle(runner)) kill(runner, {});
  }

  /** The runner broke the protocol: it is stopped, and the job it was running fails saying so. */
  function violation(runner: Runner, reason: string): void {
    kill(runner, { head: failure("crash", `the runner sent ${reason} and was stopped`) });
  }

  function onMessage(runner: Runner, raw: unknown, bytes: number): void {
    if (runner.dead) return;
    const checked = checkRunnerMessage(raw);
    if (!checked.ok) return violation(runner, `an invalid message (${checked.reason})`);
    const message: ChildMessage = checked.message;
    if (message.type === "ready") {
      if (runner.ready || runner.announced) return violation(runner, "a second ready message");
      runner.announced = true;
      // User code only once the runner sits in its cgroup (its limits hold from then on).
      const settled = runner.limits?.ready ?? Promise.resolve();
      void settled.then(() => {
        if (runner.dead) return;
        clearTimeout(runner.startTimer);
        runner.ready = true;
        becameIdle(runner);
      });
      return;
    }
    const head = runner.inflight[0];
    if (!head || message.id !== head.id) {
      // Not about the running job: a stray error between jobs, after which the child stopped
      // taking work. Anything else is a message about a job the runner was never given.
      if (message.type === "failed" && message.recycle) return kill(runner, {});
      return violation(runner, `a message about a request it is not running (${message.type})`);
    }
    if (message.type === "call") {
      runner.calls ??= createRunnerCallGate(options.serviceCalls ?? {}, runner.key, options.onCallFault);
      return runner.calls.take(message, (reply) => void (!runner.dead && runner.channel.send(reply)));
    }
    if (message.type === "event") {
      const problem = options.checkEvent?.(message.event);
      if (problem) return violation(runner, `an invalid event (${problem})`);
      return head.onEvent?.(message.event);
    }
    if (message.type === "done") {
      const problem = options.checkResult?.(head.request.type, message.result, bytes);
      if (problem) return violation(runner, `an invalid result (${problem})`);
    }
    runner.inflight.shift();
    clearTimeout(runner.headTimer);
    // The runner's own timing where it gives one: measured here, the answer's wait for this
    // event loop (busy under load) would count as the request's time, shrink the batches and
    // start more runners, which made the loop busier still.
    const tookMs = message.ms ?? performance.now() - runner.headStartedAt;
    recentMs.set(runner.key, 0.8 * (recentMs.get(runner.key) ?? tookMs) + 0.2 * tookMs);
    if (message.type === "done") head.settle({ ok: true, result: message.result });
    else head.settle({ ok: false, failure: errorFailure(message.error), validation: message.error.validation });
    // After asking to be recycled the child starts nothing more: the rest go elsewhere.
    if (message.recycle) return kill(runner, {});
    options.onExecutionEnd?.(runner.child, new Set(runner.inflight.map((job) => job.id)));
    if (runner.inflight.length > 0) {
      startHead(runner);
      if (backlog.has(runner.key)) scheduleDispatch(); // room for more behind the new head
    } else becameIdle(runner);
  }

  function errorFailure(error: ErrorData): ExecutionFailure {
    return { kind: "error", name: error.name, message: error.message, stack: error.stack };
  }

  /** The first job in flight is running from now on: its wall-clock limit starts. */
  function startHead(runner: Runner): void {
    const head = runner.inflight[0]!;
    runner.headStartedAt = performance.now();
    runner.headTimer = setTimeout(() => {
      if (runner.inflight[0] !== head) return;
      runner.inflight.shift();
      head.settle({ ok: false, failure: failure("timeout", `the execution timed out after ${head.timeoutMs} ms`) });
      kill(runner, {});
    }, head.timeoutMs);
  }

  /**
   * Stops a runner. `head` fails the job that may have started; every job behind it never
   * started, so it goes back to the front of the backlog for another runner.
   */
  function kill(runner: Runner, { head }: { head?: ExecutionFailure }): void {
    if (runner.dead) return;
    runner.dead = true;
    setOf(runner.key).delete(runner);
    clearTimeout(runner.headTimer);
    clearTimeout(runner.startTimer);
    if (runner.idleTimer) clearTimeout(runner.idleTimer);
    runner.child.kill("SIGKILL");
    runner.channel.close();
    const jobs = runner.inflight.splice(0);
    if (head && jobs.length > 0) jobs.shift()!.settle({ ok: false, failure: head });
    if (jobs.length > 0) backlogOf(runner.key).unshift(...jobs);
    scheduleDispatch();
  }

  function becameIdle(runner: Runner): void {
    if (closed) return kill(runner, {});
    runner.idleSince = performance.now();
    runner.idleMeter?.idle();
    // A runner beyond the warm ones is stopped only after a short idle spell, not at once:
    // under steady load a runner is often idle for a moment between requests, and stopping
    // it there meant starting a new process (the costliest thing on the ingest path) soon after.
    const idleCount = () => [...setOf(runner.key)].filter(isIdle).length;
    const armIdleTimer = (ms: number, extraCheck: boolean) => {
      runner.idleTimer = setTimeout(() => {
        if (!isIdle(runner)) return;
        if (!extraCheck || idleCount() > maxIdlePerKey) return kill(runner, {});
        armIdleTimer(Math.max(0, idleMs - extraIdleMs), false);
      }, ms);
      runner.idleTimer.unref();
    };
    if (idleCount() > maxIdlePerKey && idleMs > extraIdleMs) armIdleTimer(extraIdleMs, true);
    else armIdleTimer(idleMs, false);
    scheduleDispatch();
    trimIdle();
  }

  /** Many accounts each keeping warm runners must not exhaust the machine. */
  function trimIdle(): void {
    const idle = [...runners.values()].flatMap((set) => [...set]).filter(isIdle);
    if (idle.length <= maxIdleTotal) return;
    idle.sort((a, b) => a.idleSince - b.idleSince);
    for (const runner of idle.slice(0, idle.length - maxIdleTotal)) kill(runner, {});
  }

  // Dispatch runs once per turn of the event loop, so that the jobs arriving in one round of
  // I/O (many requests read at once) can share messages.
  function scheduleDispatch(): void {
    if (dispatchScheduled || closed) return;
    dispatchScheduled = true;
    setImmediate(() => {
      dispatchScheduled = false;
      if (closed) return; // a runner started now would outlive the pool
      for (const key of backlog.keys()) dispatchKey(key);
    });
  }

  function deferDispatch(ms: number): void {
    if (deferredDispatch || closed) return;
    deferredDispatch = setTimeout(() => {
      deferredDispatch = undefined;
      scheduleDispatch();
    }, Math.ceil(ms));
  }

  function dispatchKey(key: string): void {
    const jobs = backlogOf(key);
    if (jobs.length === 0) {
      backlog.delete(key);
      return;
    }
    const set = setOf(key);
    const live = [...set].filter((r) => !r.dead);
    const avgMs = recentMs.get(key);
    // How many jobs a runner may hold (running and queued behind): until the key's executions
    // were timed, one.
    const batchSize = avgMs === undefined ? 1 : Math.max(1, Math.min(MAX_BATCH, Math.floor(batchBudgetMs / avgMs)));
    // Top up the busiest runners first: a message to a busy process is cheap, waking an idle
    // one is not, so work goes in fewer, fuller messages.
    const ready = live.filter((r) => r.ready).sort((a, b) => b.inflight.length - a.inflight.length);
    const now = performance.now();
    let heldBack = 0;
    for (const runner of ready) {
      const room = batchSize - runner.inflight.length;
      if (jobs.length === 0) break;
      if (room <= 0) continue;
      const wakeAt = runner.idleSince + WAKE_GAP_MS;
      // A lone job (one client at a time) is never held back: only concurrent ones gain.
      if (runner.inflight.length === 0 && jobs.length > 1 && jobs.length < batchSize && now < wakeAt) {
        heldBack += room;
        deferDispatch(wakeAt - now);
        continue;
      }
      send(runner, jobs.splice(0, room));
    }
    // New runners only for jobs that no live runner can take: a start costs far more than
    // waiting behind a few short jobs, and a burst of starts slows every execution down.
    const starting = live.length - ready.length;
    const uncovered = jobs.length - heldBack - starting * batchSize;
    for (let n = Math.min(Math.ceil(uncovered / batchSize), maxPerKey - set.size); n > 0; n--) spawn(key);
    if (jobs.length === 0) backlog.delete(key);
  }

  function send(runner: Runner, batch: Job[]): void {
    if (runner.idleTimer) clearTimeout(runner.idleTimer);
    const wasIdle = runner.inflight.length === 0;
    if (wasIdle) runner.idleMeter?.busy();
    runner.inflight.push(...batch);
    if (wasIdle) startHead(runner);
    const messages = batch.map((job) => ({ id: job.id, type: job.request.type, payload: job.request.payload }));
    if (!runner.channel.send(messages.length === 1 ? messages[0]! : messages))
      kill(runner, { head: failure("crash", "the runner could not be reached") });
  }

  function run(
    key: string,
    request: { type: string; payload: unknown },
    runOptions: { timeoutMs: number; onEvent?: (event: unknown) => void },
  ): Promise<PoolOutcome> {
    if (closed) return Promise.resolve({ ok: false, failure: failure("crash", "the runner pool is closed") });
    return new Promise<PoolOutcome>((resolve) => {
      backlogOf(key).push({ id: nextId++, key, request, timeoutMs: runOptions.timeoutMs, onEvent: runOptions.onEvent, settle: resolve });
      scheduleDispatch();
    });
  }

  return {
    run,
    async close() {
      closed = true;
      clearTimeout(deferredDispatch);
      const all = [...runners.values()].flatMap((set) => [...set]);
      await Promise.all(
        all.map(
          (runner) =>
            new Promise<void>((resolve) => {
              if (runner.child.exitCode !== null || runner.child.signalCode !== null) return resolve();
              runner.child.once("close", () => resolve());
              kill(runner, { head: failure("crash", "the runner pool is closed") });
            }),
        ),
      );
      const closedFailure = failure("crash", "the runner pool is closed");
      for (const jobs of backlog.values()) jobs.splice(0).forEach((job) => job.settle({ ok: false, failure: closedFailure }));
    },
  };
}
