// Builds the queue for the configured store: the dialect's claim SQL and wake-up channel.
import type { Logger } from "pino";
import type { Clock } from "../lib/clock.js";
import type { Store } from "../store/store.js";
import { DbJobQueue, type QueueOptions } from "./db-job-queue.js";
import { postgresQueueDialect } from "./postgres-queue-dialect.js";
import { sqliteQueueDialect } from "./sqlite-queue-dialect.js";

type Tuning = Pick<QueueOptions, "leaseMs" | "pollMs" | "maxAttempts" | "retryBackoffMs">;

export function createJobQueue(
  options: { store: Pick<Store, "db" | "dialect" | "databaseUrl">; clock: Clock; logger: Logger } & Tuning,
): DbJobQueue {
  const { store, clock, logger, leaseMs, pollMs, maxAttempts, retryBackoffMs } = options;
  const dialect = store.dialect === "postgres" ? postgresQueueDialect(store.databaseUrl!, logger) : sqliteQueueDialect;
  return new DbJobQueue({ db: store.db, dialect, clock, logger, leaseMs, pollMs, maxAttempts, retryBackoffMs });
}
