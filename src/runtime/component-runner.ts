// The CodeRunner (code-runner.ts) over a pool of sandboxed runner processes. The service only
// prepares files (fetching relative imports, installing npm packages); the code itself is
// evaluated in a runner of the calling account, never in the service.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import type { ChildProcess } from "node:child_process";
import { buildEgressProxy, type EgressDoor, type EgressProxyOptions } from "../egress/egress-proxy.js";
import { ServiceError, invalid } from "../lib/errors.js";
import type { CodeRunner, ComponentMetadata, ExecuteResult, HttpResponseRecord, RunLimits } from "./code-runner.js";
import type { ChildExecuteResult } from "../runner/protocol/component-execution.js";
import { createModuleStore, type ModuleStore } from "./modules/module-store.js";
import { createNpmCache, type NpmCache, type NpmExec } from "./modules/npm-cache.js";
import { packageRoot } from "./package-root.js";
import { createProcessPool, type ProcessPool, type ProcessPoolOptions } from "./process-pool.js";
import { createIdleCpuSampler } from "./limits/idle-cpu.js";
import { createRunnerLimits, type RunnerLimits } from "./limits/runner-limits.js";
import { createRunnerLauncher, type LaunchRunner } from "./runner-launcher.js";
import { createPackageLinkGuard } from "./sandbox/link-check.js";
import { NEUTRAL, neutralPlace, samePlace, toRunnerPath, type RunnerPlace } from "./sandbox/runner-places.js";
import { needsRunnerUser, prepareRunnerUser, type AppFile } from "./sandbox/runner-user.js";
import { createRunnerRegistry } from "./runner-registry.js";
import { checkRunEvent, resultChecks } from "./runner-results.js";
import type { ServiceCallTable } from "./runner-calls.js";
import type { SandboxChoice, SandboxMode } from "./sandbox/choose-sandbox.js";
import { checkWorkflowSteps, executeWorkflowStep } from "./workflow/workflow-runner.js";
import { propOptions, reloadProps } from "./configure-runner.js";

const RUNTIME_DIR = dirname(fileURLToPath(import.meta.url));
/** The compiled runner: everything a runner process executes (src/runner). */
const RUNNER_DIR = join(RUNTIME_DIR, "..", "runner");

/** The compiled code a runner loads, and where each file goes in the app's layout (runner-places.ts). */
export function runnerCode(): AppFile[] {
  // The runner's own folder and the two pure files of the egress guard it imports (the import
  // test holds it to these); package.json makes Node load the compiled files as ES modules. The
  // service's side of the runtime stays out of the runner's reach.
  const egress = join(RUNTIME_DIR, "..", "egress");
  return [
    { host: RUNNER_DIR, relative: "src/runner" },
    { host: join(egress, "egress-guard.js"), relative: "src/egress/egress-guard.js" },
    { host: join(egress, "egress-protocol.js"), relative: "src/egress/egress-protocol.js" },
    { host: join(packageRoot(), "package.json"), relative: "package.json" },
  ];
}

/** What marks a runner's command line (the entry script's path ends so in every layout). */
const RUNNER_ENTRY = join("src", "runner", "runner-entry.js");

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
  /** The folder of the egress proxy's doors: each runner's own Unix socket, its only way out. */
  egressDoorsDir: string;
  /** Open egress tunnels of an account. */
  tunnelCount(userId: string): number;
  /** Settles once the egress proxy is up. */
  ready: Promise<void>;
  /** What the service should log as warnings at start (package folders removed from the cache). */
  warnings: string[];
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
  /** What runners may ask the service during an execution (runner-calls.ts), e.g. data store operations. */
  serviceCalls?: ServiceCallTable;
  /** A service call failed for a reason other than a ServiceError. */
  onCallFault?(error: unknown): void;
  /** Tests only: runners without the in-process egress guard, to show what the sandbox alone stops. */
  withoutInProcessGuard?: boolean;
  /** Open egress tunnels an account's runners may hold at once (SLUICE_MAX_TUNNELS_PER_ACCOUNT). */
  maxTunnelsPerAccount?: number;
  /** Name resolution, timeouts and host addresses of the egress proxy (tests answer DNS themselves). */
  egress?: Partial<Pick<EgressProxyOptions, "lookup" | "resolver" | "connectTimeoutMs" | "tunnelIdleMs" | "hostAddresses">>;
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
    limits: {
      maxEmits: config.maxEmitsPerRun,
      maxEmitBytes: config.maxEmitBytesPerRun,
      maxEventBytes: config.maxEventBytes,
      maxDirFiles: config.sourceFilesMax,
      maxDirBytes: config.sourceFilesBytes,
    },
    maxThreads: config.runMaxThreads,
    maxOpenFiles: config.runMaxOpenFiles,
    maxTunnelsPerAccount: config.maxTunnelsPerAccount,
  };
}

/** Room in a runner's message for what comes beside its events (logs, state, a response). */
const MESSAGE_HEADROOM_BYTES = 16 * 1024 * 1024;
/** The sandbox's /tmp. */
const TMP_BYTES = 64 * 1024 * 1024;

export function createComponentRunner(settings: RunnerSettings): ComponentRunner {
  mkdirSync(join(settings.dataDir, "runtime", "packages"), { recursive: true });
  // Real paths throughout: grants and binds must not pass through a link.
  const dataRuntime = realpathSync(join(settings.dataDir, "runtime"));
  const bwrap = settings.sandbox.mode === "bwrap";
  const runnerUser = needsRunnerUser(settings.sandbox.mode)
    ? prepareRunnerUser({ dataDir: settings.dataDir, runtimeData: dataRuntime, app: runnerCode() })
    : undefined;
  // Packages and modules; the registry of runner processes stays in the data directory.
  const runtimeData = runnerUser?.runtimeData ?? dataRuntime;
  const linkGuard = createPackageLinkGuard(join(runtimeData, "packages"), { openToOthers: runnerUser !== undefined });
  const removed = linkGuard.sweep();
  const warnings = runnerUser?.warning ? [runnerUser.warning] : [];
  if (removed.length > 0) warnings.push(`removed from the package cache, holding links that lead out of it: ${removed.join(", ")}`);
  const npm = checkedNpm(
    createNpmCache(join(runtimeData, "packages"), {
      registry: settings.npmRegistry,
      ...(settings.packageCacheMb !== undefined ? { maxBytes: settings.packageCacheMb * 1024 * 1024 } : {}),
      installsPerDay: settings.npmInstallsPerDay,
      exec: settings.npmExec,
      // An entry used this recently may be in a run (or a runner that may still load its files).
      graceMs: Math.max(15 * 60_000, 4 * settings.runTimeoutSeconds * 1000),
    }),
    linkGuard.check,
  );
  const modules = createModuleStore({ dir: join(runtimeData, "modules"), npm, allowPrivateEgress: settings.allowPrivateEgress });
  const ca = settings.extraCaCertsFile;
  // A short fresh folder: Unix socket paths are limited to about 107 bytes. Other users (the
  // uid of a sandboxed runner) may pass through it to a door but not list it.
  const egressDir = realpathSync(mkdtempSync(join(tmpdir(), "sluice-egress-")));
  chmodSync(egressDir, 0o711);

  // Where the runner finds each thing: neutral paths in the sandbox, real ones without it (the
  // unprivileged user's copy of the runner for a root service).
  const place = (path: string, neutral: string, folder: boolean): RunnerPlace =>
    bwrap ? neutralPlace(path, neutral, folder) : samePlace(path, folder);
  const appPlaces = runnerCode().map(({ host, relative }) =>
    place(runnerUser ? join(runnerUser.appRoot, relative) : host, `${NEUTRAL.app}/${relative}`, relative === "src/runner"),
  );
  const sharedPlaces = [
    ...appPlaces,
    ...(ca ? [place(ca, NEUTRAL.extraCaCerts, false)] : []),
    place(join(runtimeData, "packages"), `${NEUTRAL.data}/packages`, true),
  ];
  const placesOf = (userId: string): RunnerPlace[] => {
    const accountDir = modules.accountDir(userId);
    mkdirSync(accountDir, { recursive: true });
    return [
      ...sharedPlaces,
      place(accountDir, `${NEUTRAL.data}/modules/${accountDir.slice(join(runtimeData, "modules").length + 1)}`, true),
    ];
  };
  // Paths the service sends runners: any account's folder maps alike, so the shared places and
  // the modules folder as a whole suffice to translate them.
  const translation = [
    ...sharedPlaces,
    { host: join(runtimeData, "modules"), runner: bwrap ? `${NEUTRAL.data}/modules` : join(runtimeData, "modules"), folder: true },
  ];
  const toRunner = (path: string) => toRunnerPath(translation, path);
  const runnerModules: ModuleStore = { ...modules, prepare: async (input) => toRunner(await modules.prepare(input)) };

  const script = toRunner(realpathSync(join(runnerUser ? join(runnerUser.appRoot, "src", "runner") : RUNNER_DIR, "runner-entry.js")));
  const registry = createRunnerRegistry(join(dataRuntime, "runners"), RUNNER_ENTRY);
  registry.reapOrphans();
  // Each runner gets a door of its own (bound before launch returns: listen binds synchronously),
  // so the proxy knows whose tunnel it opens: counted per account, closed with the execution.
  const egress = buildEgressProxy({
    ...settings.egress,
    doorsDir: egressDir,
    allowPrivateEgress: settings.allowPrivateEgress,
    maxTunnelsPerAccount: settings.maxTunnelsPerAccount,
  });
  const doors = new WeakMap<ChildProcess, EgressDoor>();
  const ready = egress.listening;
  const { limits } = settings;
  const args = [`--limits=${JSON.stringify(limits)}`];
  if (settings.allowPrivateEgress) args.push("--allow-private-egress");
  if (settings.withoutInProcessGuard) args.push("--without-in-process-guard");
  // Not NODE_EXTRA_CA_CERTS: Node would load the certificates at every runner's start (~35 ms);
  // the runner's TLS loads them once, at its first connection that needs them.
  if (ca) args.push(`--extra-ca-certs=${toRunner(realpathSync(ca))}`);
  const processLimits = createRunnerLimits({
    memoryMb: settings.runMemoryMb,
    maxThreads: settings.maxThreads,
    maxOpenFiles: settings.maxOpenFiles,
  });
  const idleCpuSampler = createIdleCpuSampler();
  const launchRunner = createRunnerLauncher({
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
    places: placesOf,
    user: runnerUser,
  });
  const launch: LaunchRunner = (userId) => {
    const door = egress.openDoor(userId);
    try {
      const doorPlace = place(door.dir, NEUTRAL.egress, true);
      const launched = launchRunner(userId, { args: [`--egress-proxy=${toRunnerPath([doorPlace], door.path)}`], places: [doorPlace] });
      doors.set(launched.child, door);
      return {
        child: launched.child,
        cleanup: () => {
          door.close();
          launched.cleanup();
        },
      };
    } catch (error) {
      door.close();
      throw error;
    }
  };
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
    onExecutionEnd: (child, queued) => doors.get(child)?.endExecution(queued),
    serviceCalls: settings.serviceCalls,
    onCallFault: settings.onCallFault,
    checkEvent: checkRunEvent,
    checkResult: (type, result, bytes) => {
      const check = resultChecks[type];
      if (!check) return `a result for an unknown request type ${type}`;
      const problem = check(result);
      if (problem) return problem;
      // A source's emit carries its event beside its meta; a workflow's emit is the payload.
      if (type === "execute") return emitsOverLimits((result as ChildExecuteResult).emits, (emit) => emit.event, bytes, limits);
      if (type === "workflow.step") return emitsOverLimits((result as { emits: unknown[] }).emits, (emit) => emit, bytes, limits);
      return undefined;
    },
    ...settings.pool,
  });
  const defaultTimeoutMs = settings.runTimeoutSeconds * 1000;
  // What the requests besides a source's execution need: props forms and workflow steps.
  const requestDeps = { pool, modules: runnerModules, timeoutMs: defaultTimeoutMs };

  return {
    modules,
    npm,
    pool,
    sandbox: settings.sandbox.mode,
    isolation: `sandbox ${settings.sandbox.mode}${runnerUser ? ` (runners as uid ${runnerUser.uid})` : ""}; ${processLimits.description}`,
    limitMechanisms: processLimits.mechanisms,
    egressDoorsDir: egressDir,
    tunnelCount: (userId) => egress.tunnelCount(userId),
    ready,
    warnings,

    async inspectComponent(input): Promise<ComponentMetadata> {
      const { userId } = input;
      const entryPath = await runnerModules.prepare(input);
      const outcome = await pool.run(userId, { type: "inspect", payload: { entryPath } }, { timeoutMs: defaultTimeoutMs });
      if (outcome.ok) return outcome.result as ComponentMetadata;
      const { failure } = outcome;
      if (failure.kind === "error")
        throw invalid(
          outcome.validation ? failure.message : `the component code failed while loading: ${failure.name}: ${failure.message}`,
        );
      throw invalid(`the component code could not be loaded: ${failure.message}`);
    },

    async execute(request, options = {}): Promise<ExecuteResult> {
      const started = performance.now();
      const base = { emits: [], logs: [], state: request.state };
      let entryPath: string;
      try {
        entryPath = await runnerModules.prepare(request);
      } catch (error) {
        const message = error instanceof ServiceError ? error.message : String((error as Error)?.message ?? error);
        return {
          ...base,
          error: { kind: "error", name: "ModuleError", message, stack: `ModuleError: ${message}` },
          durationMs: performance.now() - started,
        };
      }
      const payload = {
        entryPath,
        entry: request.entry,
        event: request.event,
        props: request.props,
        state: request.state,
        dir: request.dir,
        context: request.context,
        ...(request.extraProps ? { extraProps: request.extraProps } : {}),
      };
      const onEvent = (event: unknown) => {
        const response = (event as { response?: HttpResponseRecord })?.response;
        if (response) options.onResponse?.(response);
      };
      const outcome = await pool.run(
        request.userId,
        { type: "execute", payload },
        { timeoutMs: request.timeoutMs ?? defaultTimeoutMs, onEvent },
      );
      const durationMs = performance.now() - started;
      if (!outcome.ok) return { ...base, error: outcome.failure, durationMs };
      // The result was parsed from the runner's message and nobody else holds it: completed in
      // place (copying it with a spread was ~2 % of the event loop on the ingest path).
      return Object.assign(outcome.result as ChildExecuteResult, { durationMs });
    },

    reloadProps: (input) => reloadProps(requestDeps, input),
    propOptions: (input) => propOptions(requestDeps, input),
    checkWorkflowSteps: (input) => checkWorkflowSteps(requestDeps, input),
    executeWorkflowStep: (request, options) => executeWorkflowStep(requestDeps, request, options),

    async close() {
      await pool.close();
      idleCpuSampler.close();
      await processLimits.close();
      await egress.close();
      rmSync(egressDir, { recursive: true, force: true });
      runnerUser?.close();
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

/** The npm cache whose every package folder is checked for links out of it before it is used. */
function checkedNpm(npm: NpmCache, check: (packageDir: string) => void): NpmCache {
  return {
    dir: npm.dir,
    use: (packageDirs) => npm.use(packageDirs),
    get installing() {
      return npm.installing;
    },
    install: async (name, version, account) => {
      const dir = await npm.install(name, version, account);
      check(dir);
      return dir;
    },
    installResolved: async (name, range, account) => {
      const resolved = await npm.installResolved(name, range, account);
      check(resolved.dir);
      return resolved;
    },
  };
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
