// Composition root: config → store → services → HTTP + background roles. Built once.
import type { FastifyInstance } from "fastify";
import { pino, type Logger } from "pino";
import type { Config } from "./config.js";
import type { Ctx } from "./domain/context.js";
import { bootstrapFirstUser } from "./domain/users/bootstrap.js";
import { registerDeliveryWorker } from "./delivery/delivery-worker.js";
import { publishRegistry, registryDirs } from "./domain/components/publish-registry.js";
import { buildHttpApp } from "./http/app.js";
import { systemClock, type Clock } from "./lib/clock.js";
import { ServiceError } from "./lib/errors.js";
import type { Services } from "./services.js";
import { createJobQueue } from "./queue/create-job-queue.js";
import { registerSourceJobs } from "./domain/sources/source-jobs.js";
import { installWorkflows } from "./domain/workflows/install.js";
import { createMailer } from "./mail/create-mailer.js";
import { startTimerLoop } from "./scheduler/timer-loop.js";
import { createComponentRunner, runnerSettings } from "./runtime/component-runner.js";
import { openStore } from "./store/store.js";

export type Role = "api" | "worker" | "scheduler";
export const ALL_ROLES: Role[] = ["api", "worker", "scheduler"];

/** Something that runs in the background of a role and stops on shutdown. */
export interface BackgroundTask {
  name: string;
  stop(): Promise<void>;
}

export interface Sluice {
  services: Services;
  app: FastifyInstance | undefined;
  /** Where the HTTP server listens, e.g. http://127.0.0.1:8080 (api role only). */
  url: string | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  roles?: Role[];
  logger?: Logger;
  clock?: Clock;
  /** Called with a generated first API key; the CLI prints it once on stdout. */
  onBootstrapKey?: (apiKey: string) => void;
}

export async function startSluice(config: Config, options: StartOptions = {}): Promise<Sluice> {
  const roles = options.roles ?? ALL_ROLES;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const ctx: Ctx = { db: store.db, dialect: store.dialect, clock: options.clock ?? systemClock, logger, config };
  const queue = createJobQueue({ store, clock: ctx.clock, logger, leaseMs: config.queueLeaseSeconds * 1000 });
  const runner = createComponentRunner(runnerSettings(config));
  await runner.ready;
  const mailer = createMailer(config, logger);
  const services: Services = { ctx, store, queue, runner, mailer };
  const tasks: BackgroundTask[] = [];
  // First in, so stopped last: workers may still be running code (and sending mail) while they stop.
  tasks.push({ name: "mailer", stop: () => mailer.close() });
  tasks.push({ name: "runner", stop: () => runner.close() });
  // Handlers register with the queue before it starts (any module may add its own).
  const delivery = registerDeliveryWorker({ ctx, queue });
  tasks.push({ name: "delivery", stop: () => delivery.stop() });
  registerSourceJobs({ ctx, runner, queue });
  installWorkflows(services);

  await bootstrap(ctx, options.onBootstrapKey);
  await publishRegistry({ ctx, runner, dirs: registryDirs(config.registryDir) });

  let app: FastifyInstance | undefined;
  let url: string | undefined;
  if (roles.includes("api")) {
    app = await buildHttpApp(services, logger);
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    url = typeof address === "object" && address ? `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}` : undefined;
    // PORT=0 picks a free port: a public URL derived from it must name the real one.
    if (url && new URL(config.publicUrl).port === "0") config.publicUrl = url;
  }

  if (roles.includes("worker")) {
    queue.start();
    tasks.push({ name: "queue", stop: () => queue.stop() });
  }
  if (roles.includes("scheduler")) tasks.push(startTimerLoop({ ctx, queue }));

  let closed = false;
  return {
    services,
    app,
    url,
    async close() {
      if (closed) return;
      closed = true;
      await app?.close();
      for (const task of tasks.reverse()) await task.stop();
      await store.close();
    },
  };
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
