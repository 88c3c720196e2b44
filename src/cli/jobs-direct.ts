// `sluice jobs dead|retry` without a server: the database the environment names, opened
// directly (like `registry list`). Logs go to stderr; stdout is the command's output.
import { pino } from "pino";
import type { Config } from "../config.js";
import { listDeadJobs, retryDeadJob, type DeadJobView } from "../domain/jobs/manage-dead-jobs.js";
import { systemClock } from "../lib/clock.js";
import { createContext } from "../main.js";
import type { Page, PageRequest } from "../store/paginate.js";
import { openStore } from "../store/store.js";

async function withContext<T>(config: Config, run: (ctx: ReturnType<typeof createContext>) => Promise<T>): Promise<T> {
  const logger = pino({ level: "warn" }, pino.destination(2));
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  try {
    return await run(createContext(store, { clock: systemClock, logger, config }));
  } finally {
    await store.close();
  }
}

export function listDeadJobsDirectly(config: Config, page: PageRequest): Promise<Page<DeadJobView>> {
  return withContext(config, (ctx) => listDeadJobs({ ctx, page }));
}

export function retryDeadJobDirectly(config: Config, id: string): Promise<void> {
  return withContext(config, (ctx) => retryDeadJob({ ctx, id }));
}
