// The CodeRunner (contract.ts) over a pool of sandboxed runner processes. The service only
// prepares files (fetching relative imports, installing npm packages); the code itself is
// evaluated in a runner of the calling account, never in the service.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import { createEgressProxy, type EgressProxyOptions } from "../egress/egress-proxy.js";
import { ServiceError, invalid } from "../lib/errors.js";
import type { CodeRunner, ComponentMetadata, ExecuteResult, HttpResponseRecord } from "./contract.js";
import type { ChildExecuteResult } from "./child/execute.js";
import { createModuleStore, type ModuleStore } from "./modules/module-store.js";
import { createNpmCache } from "./modules/npm-cache.js";
import { permissionFlags } from "./node-flags.js";
import { packageRoot } from "./package-root.js";
import { createProcessPool, type ProcessPool, type ProcessPoolOptions } from "./process-pool.js";
import { createRunnerRegistry } from "./runner-registry.js";
import { checkWorkflowSteps, executeWorkflow } from "./workflow/workflow-runner.js";

const RUNTIME_DIR = dirname(fileURLToPath(import.meta.url));

/** Folders and files a runner may read besides its account's module folder. */
export function runnerCodePaths(): string[] {
  // The whole compiled runtime folder: the component child and the workflow steps (issue 5).
  const egress = join(RUNTIME_DIR, "..", "egress");
  return [RUNTIME_DIR + "/", join(egress, "egress-guard.js"), join(egress, "egress-protocol.js"), join(packageRoot(), "package.json")];
}

export interface ComponentRunner extends CodeRunner {
  modules: ModuleStore;
  pool: ProcessPool;
  /** The egress proxy's Unix socket, the runners' only way out (a sandbox binds its folder). */
  egressProxyPath: string;
  /** Settles once the egress proxy listens; rejects when it could not start. */
  ready: Promise<void>;
}

export interface RunnerSettings {
  dataDir: string;
  runTimeoutSeconds: number;
  runMemoryMb: number;
  allowPrivateEgress: boolean;
  extraCaCertsFile?: string;
  pool?: Partial<Pick<ProcessPoolOptions, "maxPerKey" | "maxIdlePerKey" | "idleMs" | "onSpawn">>;
  /** Name resolution and timeouts of the egress proxy (tests answer DNS themselves). */
  egress?: Partial<Pick<EgressProxyOptions, "lookup" | "resolver" | "connectTimeoutMs">>;
}

export function runnerSettings(config: Config): RunnerSettings {
  return { dataDir: config.dataDir, runTimeoutSeconds: config.runTimeoutSeconds, runMemoryMb: config.runMemoryMb, allowPrivateEgress: config.allowPrivateEgress, extraCaCertsFile: config.extraCaCertsFile };
}

export function createComponentRunner(settings: RunnerSettings): ComponentRunner {
  const runtimeData = join(settings.dataDir, "runtime");
  const npm = createNpmCache(join(runtimeData, "packages"));
  const modules = createModuleStore({ dir: join(runtimeData, "modules"), npm, allowPrivateEgress: settings.allowPrivateEgress });
  mkdirSync(npm.dir, { recursive: true });
  const ca = settings.extraCaCertsFile;
  const codePaths = [...runnerCodePaths(), ...(ca ? [ca] : [])];
  const script = join(RUNTIME_DIR, "child", "main.js");
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
  const pool = createProcessPool({
    script,
    registry,
    args: [`--egress-proxy=${egressProxyPath}`, ...(settings.allowPrivateEgress ? ["--allow-private-egress"] : [])],
    memoryMb: settings.runMemoryMb,
    // Node loads the certificates at startup; harden() then empties process.env.
    env: ca ? { NODE_EXTRA_CA_CERTS: ca } : {},
    execArgv: (userId) => {
      const accountDir = modules.accountDir(userId);
      mkdirSync(accountDir, { recursive: true });
      return permissionFlags([...codePaths, npm.dir + "/", accountDir + "/"]);
    },
    ...settings.pool,
  });
  const defaultTimeoutMs = settings.runTimeoutSeconds * 1000;

  return {
    modules,
    pool,
    egressProxyPath,
    ready,

    async inspectComponent({ userId, code, codeUrl }): Promise<ComponentMetadata> {
      const entryPath = await modules.prepare({ userId, code, codeUrl });
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
        entryPath = await modules.prepare({ userId: request.userId, code: request.code, codeUrl: request.codeUrl });
      } catch (error) {
        const message = error instanceof ServiceError ? error.message : String((error as Error)?.message ?? error);
        return { ...base, error: { kind: "error", name: "ModuleError", message, stack: `ModuleError: ${message}` }, durationMs: performance.now() - started };
      }
      const payload = { entryPath, entry: request.entry, event: request.event, props: request.props, state: request.state, context: request.context };
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
      await egress.then((proxy) => proxy.close(), () => undefined);
      rmSync(egressDir, { recursive: true, force: true });
    },
  };
}
