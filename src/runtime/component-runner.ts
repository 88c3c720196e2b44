// The CodeRunner (code-runner.ts) over a pool of sandboxed runner processes. The service only
// prepares files (fetching relative imports, installing npm packages); the code itself is
// evaluated in a runner of the calling account, never in the service.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import { createEgressProxy, type EgressProxyOptions } from "../egress/egress-proxy.js";
import { ServiceError, invalid } from "../lib/errors.js";
import type { CodeRunner, ComponentMetadata, ExecuteResult, HttpResponseRecord, RunLimits } from "./code-runner.js";
import type { ChildExecuteResult } from "./child/execute.js";
import { createModuleStore, type ModuleStore } from "./modules/module-store.js";
import { createNpmCache, type NpmCache, type NpmExec } from "./modules/npm-cache.js";
import { packageRoot } from "./package-root.js";
import { createProcessPool, type ProcessPool, type ProcessPoolOptions } from "./process-pool.js";
import { createIdleCpuSampler } from "./limits/idle-cpu.js";
import { createRunnerLimits, type RunnerLimits } from "./limits/runner-limits.js";
import { createRunnerLauncher } from "./runner-launcher.js";
import { createRunnerRegistry } from "./runner-registry.js";
import { checkRunEvent, resultChecks } from "./runner-results.js";
import type { SandboxChoice, SandboxMode } from "./sandbox/choose-sandbox.js";
import { checkWorkflowSteps, executeWorkflow } from "./workflow/workflow-runner.js";

const RUNTIME_DIR = dirname(fileURLToPath(import.meta.url));

/** Folders and files a runner may read besides its account's module folder. */
export function runnerCodePaths(): string[] {
  // The whole compiled runtime folder: the component runner and the workflow steps.
  const egress = join(RUNTIME_DIR, "..", "egress");
  return [RUNTIME_DIR + "/", join(egress, "egress-guard.js"), join(egress, "egress-protocol.js"), join(packageRoot(), "package.json")];
}

export interface ComponentRunner extends CodeRunner {
  modules: ModuleStore;
  /** The npm packages installed on this host (component code's imports, registry packages). */
  npm: NpmCache;
  pool: ProcessPool;
  /** How runners are isolated in this process. */
  sandbox: SandboxMode;
  /** One line on the sandbox and each runner's limits, for the log at start. */
  isolation: string;
  /** How each runner's memory (Buffers included) and CPU time are held here. */
  limitMechanisms: RunnerLimits["mechanisms"];
  /** The egress proxy's Unix socket, the runners' only way out (the sandbox binds its folder). */
  egressProxyPath: string;
  /** Settles once the egress proxy listens; rejects when it could not start. */
  ready: Promise<void>;
}

export interface RunnerSettings {
  dataDir: string;
  sandbox: SandboxChoice;
  runTimeoutSeconds: number;
  runMemoryMb: number;
  allowPrivateEgress: boolean;
  /** The npm registry packages are installed from (SLUICE_NPM_REGISTRY); npm's own setting when unset. */
  npmRegistry?: string;
  /** The npm package cache's size cap (SLUICE_PACKAGE_CACHE_MB). */
  packageCacheMb?: number;
  /** npm installs one account may start per UTC day (SLUICE_NPM_INSTALLS_PER_DAY). */
  npmInstallsPerDay?: number;
  /** Tests: how npm is run (e.g. counting processes). */
  npmExec?: NpmExec;
  extraCaCertsFile?: string;
  limits: RunLimits;
  /** Threads and processes, open files of one runner. */
  maxThreads: number;
  maxOpenFiles: number;
  /** CPU an account's idle runner used (timers left running), to count as its compute time. */
  onIdleCompute?(userId: string, ms: number): void;
  pool?: Partial<Pick<ProcessPoolOptions, "maxPerKey" | "maxIdlePerKey" | "idleMs" | "onSpawn">>;
  /** Told when a runner process starts (+1) and ends (-1): the metrics' gauge. */
  onRunnerCount?(delta: number): void;
  /** Tests only: runners without the in-process egress guard, to show what the sandbox alone stops. */
  withoutInProcessGuard?: boolean;
  /** Name resolution and timeouts of the egress proxy (tests answer DNS themselves). */
  egress?: Partial<Pick<EgressProxyOptions, "lookup" | "resolver" | "connectTimeoutMs">>;
}

export function runnerSettings(config: Config, sandbox: SandboxChoice): RunnerSettings {
  return {
    dataDir: config.dataDir,
    sandbox,
    runTimeoutSeconds: config.runTimeoutSeconds,
    runMemoryMb: config.runMemoryMb,
    allowPrivateEgress: config.allowPrivateEgress,
    npmRegistry: config.npmRegistry,
    packageCacheMb: config.packageCacheMb,
    npmInstallsPerDay: config.npmInstallsPerDay,
    extraCaCertsFile: config.extraCaCertsFile,
    limits: { maxEmits: config.maxEmitsPerRun, maxEmitBytes: config.maxEmitBytesPerRun, maxEventBytes: config.maxEventBytes },
    maxThreads: config.runMaxThreads,
    maxOpenFiles: config.runMaxOpenFiles,
  };
}

/** Room in a runner's message for what comes beside its events (logs, state, a response). */
const MESSAGE_HEADROOM_BYTES = 16 * 1024 * 1024;
/** The sandbox's /tmp. */
const TMP_BYTES = 64 * 1024 * 1024;

export function createComponentRunner(settings: RunnerSettings): ComponentRunner {
  const runtimeData = join(settings.dataDir, "runtime");
  const npm = createNpmCache(join(runtimeData, "packages"), {
    registry: settings.npmRegistry,
    ...(settings.packageCacheMb !== undefined ? { maxBytes: settings.packageCacheMb * 1024 * 1024 } : {}),
    installsPerDay: settings.npmInstallsPerDay,
    exec: settings.npmExec,
    // An entry used this recently may be in a run (or a runner that may still load its files).
    graceMs: Math.max(15 * 60_000, 4 * settings.runTimeoutSeconds * 1000),
  });
  const modules = createModuleStore({ dir: join(runtimeData, "modules"), npm, allowPrivateEgress: settings.allowPrivateEgress });
  mkdirSync(npm.dir, { recursive: true });
  const ca = settings.extraCaCertsFile;
  const codePaths = [...runnerCodePaths(), ...(ca ? [ca] : [])];
  const script = join(RUNTIME_DIR, "child", "runner-entry.js");
  const registry = createRunnerRegistry(join(runtimeData, "runners"), script);
  registry.reapOrphans();
  // A short fresh folder: Unix socket paths are limited to about 107 bytes. Other users (the
  // uid of a sandboxed runner) may pass through it to the socket but not list it.
  const egressDir = mkdtempSync(join(tmpdir(), "sluice-egress-"));
  chmodSync(egressDir, 0o711);
  const egressProxyPath = join(egressDir, "egress.sock");
  // The socket is bound before this returns (listen binds synchronously), so runners started
  // right away find it; `ready` reports a proxy that could not start.
  const egress = createEgressProxy({ ...settings.egress, socketPath: egressProxyPath, allowPrivateEgress: settings.allowPrivateEgress });
  const ready = egress.then(() => undefined);
  ready.catch(() => {});
  const { limits } = settings;
  const args = [`--egress-proxy=${egressProxyPath}`, `--limits=${JSON.stringify(limits)}`];
  if (settings.allowPrivateEgress) args.push("--allow-private-egress");
  if (settings.withoutInProcessGuard) args.push("--without-in-process-guard");
  // Not NODE_EXTRA_CA_CERTS: Node would load the certificates at every runner's start (~35 ms);
  // the runner's TLS loads them once, at its first connection that needs them.
  if (ca) args.push(`--extra-ca-certs=${ca}`);
  const processLimits = createRunnerLimits({ memoryMb: settings.runMemoryMb, maxThreads: settings.maxThreads, maxOpenFiles: settings.maxOpenFiles });
  const idleCpuSampler = createIdleCpuSampler();
  const launch = createRunnerLauncher({
    sandbox: settings.sandbox,
    script,
    args,
    memoryMb: settings.runMemoryMb,
    tmpBytes: TMP_BYTES,
    wrap: (command, args) => {
      const wrapped = processLimits.wrapCommand(command, args);
      return [wrapped.command, wrapped.args];
    },
    env: {},
    readPaths: (userId) => {
      const accountDir = modules.accountDir(userId);
      mkdirSync(accountDir, { recursive: true });
      return [...codePaths, npm.dir + "/", accountDir + "/", egressDir + "/"];
    },
  });
  const pool = createProcessPool({
    launch,
    registry: settings.onRunnerCount ? countingRegistry(registry, settings.onRunnerCount) : registry,
    limits: processLimits,
    idleCpu: {
      sampler: idleCpuSampler,
      budgetMs: settings.runTimeoutSeconds * 1000,
      onIdleCpu: (userId, ms) => settings.onIdleCompute?.(userId, ms),
    },
    maxMessageBytes: limits.maxEmitBytes + MESSAGE_HEADROOM_BYTES,
    checkEvent: checkRunEvent,
    checkResult: (type, result, bytes) => {
      const check = resultChecks[type];
      if (!check) return `a result for an unknown request type ${type}`;
      const problem = check(result);
      if (problem) return problem;
      // A source's emit carries its event beside its meta; a workflow's emit is the payload.
      if (type === "execute") return emitsOverLimits((result as ChildExecuteResult).emits, (emit) => emit.event, bytes, limits);
      if (type === "workflow.run") return emitsOverLimits((result as { emits: unknown[] }).emits, (emit) => emit, bytes, limits);
      return undefined;
    },
    ...settings.pool,
  });
  const defaultTimeoutMs = settings.runTimeoutSeconds * 1000;

  return {
    modules,
    npm,
    pool,
    sandbox: settings.sandbox.mode,
    isolation: `sandbox ${settings.sandbox.mode}; ${processLimits.description}`,
    limitMechanisms: processLimits.mechanisms,
    egressProxyPath,
    ready,

    async inspectComponent(input): Promise<ComponentMetadata> {
      const { userId } = input;
      const entryPath = await modules.prepare(input);
      const outcome = await pool.run(userId, { type: "inspect", payload: { entryPath } }, { timeoutMs: defaultTimeoutMs });
      if (outcome.ok) return outcome.result as ComponentMetadata;
      const { failure } = outcome;
      if (failure.kind === "error") throw invalid(outcome.validation ? failure.message : `the component code failed while loading: ${failure.name}: ${failure.message}`);
      throw invalid(`the component code could not be loaded: ${failure.message}`);
    },

    async execute(request, options = {}): Promise<ExecuteResult> {
      const started = performance.now();
      const base = { emits: [], logs: [], state: request.state };
      let entryPath: string;
      try {
        entryPath = await modules.prepare(request);
      } catch (error) {
        const message = error instanceof ServiceError ? error.message : String((error as Error)?.message ?? error);
        return { ...base, error: { kind: "error", name: "ModuleError", message, stack: `ModuleError: ${message}` }, durationMs: performance.now() - started };
      }
      const payload = { entryPath, entry: request.entry, event: request.event, props: request.props, state: request.state, dir: request.dir, context: request.context };
      const onEvent = (event: unknown) => {
        const response = (event as { response?: HttpResponseRecord })?.response;
        if (response) options.onResponse?.(response);
      };
      const outcome = await pool.run(request.userId, { type: "execute", payload }, { timeoutMs: request.timeoutMs ?? defaultTimeoutMs, onEvent });
      const durationMs = performance.now() - started;
      if (!outcome.ok) return { ...base, error: outcome.failure, durationMs };
      // The result was parsed from the runner's message and nobody else holds it: completed in
      // place (copying it with a spread was ~2 % of the event loop on the ingest path).
      return Object.assign(outcome.result as ChildExecuteResult, { durationMs });
    },

    checkWorkflowSteps: (input) => checkWorkflowSteps({ pool, modules, timeoutMs: defaultTimeoutMs }, input),
    executeWorkflow: (request, options) => executeWorkflow({ pool, modules, timeoutMs: defaultTimeoutMs }, request, options),

    async close() {
      await pool.close();
      idleCpuSampler.close();
      await processLimits.close();
      await egress.then((proxy) => proxy.close(), () => undefined);
      rmSync(egressDir, { recursive: true, force: true });
    },
  };
}

/**
 * The per-execution limits, checked again on what arrived: the runner enforces them for
 * well-behaved code, but user code shares its process and may have bypassed that. Sizes are
 * measured only when the whole message could hold an event over the limit.
 */
function emitsOverLimits<T>(emits: T[], eventOf: (emit: T) => unknown, bytes: number, limits: RunLimits): string | undefined {
  if (emits.length > limits.maxEmits) return `${emits.length} events, over the limit of ${limits.maxEmits} per execution`;
  if (bytes <= Math.min(limits.maxEventBytes, limits.maxEmitBytes)) return undefined;
  let total = 0;
  for (const emit of emits) {
    const size = Buffer.byteLength(JSON.stringify(eventOf(emit)) ?? "null");
    if (size > limits.maxEventBytes) return `an event of ${size} bytes, over the limit of ${limits.maxEventBytes}`;
    total += size;
  }
  return total > limits.maxEmitBytes ? `${total} bytes of events, over the limit of ${limits.maxEmitBytes} per execution` : undefined;
}

/** The runner registry, also counting the processes it records and forgets. */
function countingRegistry(registry: { record(pid: number): void; forget(pid: number): void }, onCount: (delta: number) => void) {
  return {
    record(pid: number) {
      onCount(1);
      registry.record(pid);
    },
    forget(pid: number) {
      onCount(-1);
      registry.forget(pid);
    },
  };
}
