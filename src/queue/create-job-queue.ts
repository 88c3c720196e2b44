// Builds the queue for the configured store: the dialect's claim SQL and wake-up channel.
import type { Logger } from "pino";
import type { Clock } from "../lib/clock.js";
import type { Store } from "../store/store.js";
import { DbJobQueue } from "./db-job-queue.js";
import { postgresQueueDialect } from "./postgres-queue-dialect.js";
import { sqliteQueueDialect } from "./sqlite-queue-dialect.js";

export function createJobQueue(options: { store: Pick<Store, "db" | "dialect" | "databaseUrl">; clock: Clock; logger: Logger; leaseMs?: number; pollMs?: number }): DbJobQueue {
  const { store } = options;
  const dialect = store.dialect === "postgres" ? postgresQueueDialect(store.databaseUrl!, options.logger) : sqliteQueueDialect;
  return new DbJobQueue({ db: store.db, dialect, clock: options.clock, logger: options.logger, leaseMs: options.leaseMs, pollMs: options.pollMs });
}
