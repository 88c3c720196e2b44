// Composition root: config → store → services → HTTP + background roles. Built once. The
// platform's behaviour is wired here: what happens when an account is made, who receives
// deliveries to sources and workflows, and which job types the queue runs.
import type { FastifyInstance } from "fastify";
import { pino, type Logger } from "pino";
import { ALL_ROLES, assertSafeConfig, type Config, type Role } from "./config.js";
import type { LookupFunction } from "./egress/egress-target.js";
import type { AddressSet } from "./egress/egress-guard.js";
import type { Ctx } from "./domain/context.js";
import { newInProcessState } from "./domain/in-process-state.js";
import type { ListenerHandler } from "./domain/deliveries/listener-handlers.js";
import type { HandledListenerKind } from "./lib/resource-kinds.js";
import { createAuthCache } from "./domain/users/auth-cache.js";
import { createEventLimits } from "./domain/events/event-limits.js";
import { bootstrapFirstUser } from "./domain/users/bootstrap.js";
import { registerDeliveryWorker } from "./delivery-worker/delivery-worker.js";
import { publishRegistry, registryDirs } from "./domain/components/publish-registry.js";
import { ensureRegistryPackages } from "./domain/registry/registry-packages-at-start.js";
import { buildHttpApp } from "./http/app.js";
import { startMetricsServer } from "./http/metrics-server.js";
import { startSmtpListener } from "./smtp-inbound/smtp-listener.js";
import { systemClock, type Clock } from "./lib/clock.js";
import { ServiceError } from "./lib/errors.js";
import { createMetrics, type Metrics } from "./lib/metrics.js";
import { workflowDeps, type Services } from "./services.js";
import { createJobQueue } from "./queue/create-job-queue.js";
import { jobCountsByState } from "./queue/job-states.js";
import { registerSourceJobs, runSourceForDelivery } from "./domain/sources/source-jobs.js";
import { createErrorWorkflow } from "./domain/workflows/error-workflow.js";
import { handleWorkflowDelivery, registerWorkflowJobs } from "./domain/workflows/workflow-jobs.js";
import { createMailer } from "./mail/create-mailer.js";
import { httpSender } from "./domain/workflows/runs/send-http.js";
import { startTimerLoop } from "./scheduler/timer-loop.js";
import { createComponentRunner, runnerSettings } from "./runtime/component-runner.js";
import { meteredRunner } from "./runtime/metered-runner.js";
import { chooseSandbox, type SandboxChoice } from "./runtime/sandbox/choose-sandbox.js";
import { startRetentionLoop } from "./domain/retention/retention-loop.js";
import { recordIdleCompute } from "./domain/usage/record-idle-compute.js";
import { dataStoreCalls } from "./domain/data-stores/data-store-calls.js";
import { openStore, type Store } from "./store/store.js";
import { loadCredentialKey } from "./domain/accounts/credential-key.js";

export { ALL_ROLES, type Role } from "./config.js";

/** Something that runs in the background of a role and stops on shutdown. */
export interface BackgroundTask {
  name: string;
  stop(): Promise<void>;
}

export interface Sluice {
  services: Services;
  /** The delivery worker's receivers of deliveries to sources and workflows. */
  listenerHandlers: Map<HandledListenerKind, ListenerHandler>;
  app: FastifyInstance | undefined;
  /** Where the HTTP server listens, e.g. http://127.0.0.1:8080 (api role only). */
  url: string | undefined;
  /** Where /metrics is served apart from the API (SLUICE_METRICS_PORT without the api role). */
  metricsUrl: string | undefined;
  /** Where inbound e-mail is received, e.g. smtp://127.0.0.1:2525 (SLUICE_SMTP_INBOUND_PORT, api role only). */
  smtpUrl: string | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  roles?: Role[];
  logger?: Logger;
  clock?: Clock;
  /** How runners are isolated; chosen from config.sandbox (probing bubblewrap) when absent. */
  sandbox?: SandboxChoice;
  /** Called with a generated first API key; the CLI prints it once on stdout. */
  onBootstrapKey?: (apiKey: string) => void;
  /** Delay before a failed job's next attempt, by the attempt that failed (tests make it short); exponential when absent. */
  jobRetryBackoffMs?: (attempts: number) => number;
  /** How the domain resolves names for its egress checks (webhook URLs); the system's DNS when absent (tests pass a table). */
  lookup?: LookupFunction;
  /** The host's own addresses for those checks; the real interfaces when absent (tests pass a list). */
  hostAddresses?: AddressSet;
}

export async function startSluice(config: Config, options: StartOptions = {}): Promise<Sluice> {
  assertSafeConfig(config);
  const roles = options.roles ?? ALL_ROLES;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const sandbox = options.sandbox ?? chooseSandbox(config.sandbox);
  if (sandbox.warning) logger.warn(sandbox.warning);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  // One registry per instance: two instances in one process (tests) count apart.
  const metrics = createMetrics();
  const credentialKey = await loadCredentialKey(store.db, config).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const ctx = createContext(store, {
    clock: options.clock ?? systemClock,
    logger,
    config,
    metrics,
    credentialKey,
    lookup: options.lookup,
    hostAddresses: options.hostAddresses,
  });
  metrics.gaugeOnScrape("sluice_jobs", "Jobs in the queue, by state", "state", () => jobCountsByState(store.db, ctx.clock.now()));
  const queue = createJobQueue({
    store,
    clock: ctx.clock,
    logger,
    leaseMs: config.queueLeaseSeconds * 1000,
    maxAttempts: config.jobMaxAttempts,
    retryBackoffMs: options.jobRetryBackoffMs,
  });
  const runner = meteredRunner(
    createComponentRunner({
      ...runnerSettings(config, sandbox),
      onIdleCompute: (userId, computeMs) => void recordIdleCompute({ ctx, input: { userId, computeMs } }),
      onRunnerCount: (delta) => metrics.runnerProcesses(delta),
      // What user code may ask the service during an execution: its data stores' operations.
      serviceCalls: dataStoreCalls(ctx),
      onCallFault: (error) => logger.error({ err: error }, "a runner's call to the service failed"),
    }),
    metrics,
  );
  logger.info(`user code runs with ${runner.isolation}`);
  for (const warning of runner.warnings) logger.warn(warning);
  await runner.ready;
  const mailer = createMailer(config, logger);
  const services: Services = { ctx, store, queue, runner, mailer, httpSender: httpSender(ctx) };
  const tasks: BackgroundTask[] = [];
  // First in, so stopped last: workers may still be running code (and sending mail) while they stop.
  tasks.push({ name: "mailer", stop: () => mailer.close() });
  tasks.push({ name: "runner", stop: () => runner.close() });
  // Handlers register with the queue before it starts.
  const sourceDeps = { ctx, runner };
  const workflows = workflowDeps(services);
  const listenerHandlers = new Map<HandledListenerKind, ListenerHandler>([
    ["source", (delivery) => runSourceForDelivery(sourceDeps, delivery)],
    ["workflow", (delivery) => handleWorkflowDelivery(workflows, delivery)],
  ]);
  const delivery = registerDeliveryWorker({ ctx, queue, listenerHandlers });
  tasks.push({ name: "delivery", stop: () => delivery.stop() });
  registerSourceJobs({ ...sourceDeps, queue });
  registerWorkflowJobs(workflows);

  await bootstrap(ctx, options.onBootstrapKey);
  await publishRegistry({ ctx, runner, dirs: registryDirs(config.registryDir) });

  let app: FastifyInstance | undefined;
  let url: string | undefined;
  let metricsUrl: string | undefined;
  if (roles.includes("api")) {
    app = await buildHttpApp(services, logger);
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    url =
      typeof address === "object" && address
        ? `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`
        : undefined;
    // PORT=0 picks a free port: a public URL derived from it must name the real one.
    if (url && new URL(config.publicUrl).port === "0") config.publicUrl = url;
  }

  let smtpUrl: string | undefined;
  if (roles.includes("api") && config.smtpInboundPort !== undefined) {
    const listener = await startSmtpListener(services, {
      host: config.host,
      port: config.smtpInboundPort,
      name: config.emailDomain,
      maxMessageBytes: config.smtpMaxMessageBytes,
      maxEventBytes: config.maxEventBytes,
      maxConnectionsPerClient: config.smtpMaxConnectionsPerClient,
      maxMessagesPerClientMinute: config.smtpMaxMessagesPerClientMinute,
      tls:
        config.smtpTlsCertFile && config.smtpTlsKeyFile ? { certFile: config.smtpTlsCertFile, keyFile: config.smtpTlsKeyFile } : undefined,
      logger,
    });
    tasks.push({ name: "smtp", stop: () => listener.close() });
    smtpUrl = listener.url;
    logger.info(`inbound e-mail for ${config.emailDomain} on ${smtpUrl}`);
  }

  if (!app && config.metricsPort !== undefined) {
    const server = await startMetricsServer(metrics, { host: config.host, port: config.metricsPort, token: config.metricsToken });
    tasks.push({ name: "metrics", stop: () => server.close() });
    metricsUrl = server.url;
  }

  if (roles.includes("worker")) {
    queue.start();
    tasks.push({ name: "queue", stop: () => queue.stop() });
    tasks.push(startRetentionLoop(ctx, { freePages: store.freePages }));
  }
  if (roles.includes("scheduler")) tasks.push(startTimerLoop({ ctx, queue }));
  if (config.registryPackages.length > 0) {
    // Off the start path: npm may take a while, and a package that cannot be had is only a warning.
    const added = ensureRegistryPackages({ ctx, runner }, config.registryPackages).catch((error: unknown) =>
      logger.warn({ err: error }, "SLUICE_REGISTRY_PACKAGES could not be applied"),
    );
    tasks.push({ name: "registry packages", stop: () => added });
  }

  let closed = false;
  return {
    services,
    listenerHandlers,
    app,
    url,
    metricsUrl,
    smtpUrl,
    async close() {
      if (closed) return;
      closed = true;
      await app?.close();
      for (const task of tasks.reverse()) await task.stop();
      await store.close();
    },
  };
}

/** The context of domain verbs on an open store; the CLI's commands use it too. */
export function createContext(
  store: Store,
  options: Pick<Ctx, "clock" | "logger" | "config" | "credentialKey" | "lookup" | "hostAddresses"> & { metrics?: Metrics },
): Ctx {
  return {
    db: store.db,
    storage: store.storage,
    clock: options.clock,
    logger: options.logger,
    config: options.config,
    metrics: options.metrics ?? createMetrics({ processDefaults: false }),
    // Every new account gets its global error workflow.
    userCreatedHooks: [createErrorWorkflow],
    ...newInProcessState(),
    authCache: createAuthCache(),
    eventLimits: createEventLimits(options.config, store.db),
    credentialKey: options.credentialKey,
    lookup: options.lookup,
    hostAddresses: options.hostAddresses,
  };
}

/**
 * Runs an operator's task on the database the configuration names, with no role started: the
 * `sluice` commands that work without a server call this, so the CLI never opens storage
 * itself. The store is closed however the task ends.
 */
export async function withDirectContext<T>(config: Config, logger: Logger, task: (ctx: Ctx) => Promise<T>): Promise<T> {
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  try {
    return await task(createContext(store, { clock: systemClock, logger, config }));
  } finally {
    await store.close();
  }
}

async function bootstrap(ctx: Ctx, onKey: ((apiKey: string) => void) | undefined): Promise<void> {
  try {
    const created = await bootstrapFirstUser({ ctx });
    if (created?.generated) onKey?.(created.apiKey);
  } catch (error) {
    // Another process sharing the database made the first user at the same moment.
    if (!(error instanceof ServiceError && error.code === "CONFLICT")) throw error;
  }
}
