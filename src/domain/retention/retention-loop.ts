// The worker role's background pruning: a retention pass soon after start, then one per
// interval, each logged with what it removed. Several workers sharing a PostgreSQL database
// each run it; their deletes of the same rows are harmless (a row is deleted once).
import { DAY_MS, pruneExpired, type PruneCtx, type PruneOptions } from "./prune-expired.js";

const FIRST_PASS_DELAY_MS = 60_000;
const MAX_PASS_INTERVAL_MS = 60 * 60_000;

/** Hourly, or ten passes per retention period when that is shorter, so rows outlive it by a tenth at most. */
export function passIntervalMs(retentionDays: number): number {
  return Math.min(MAX_PASS_INTERVAL_MS, Math.max(1000, (retentionDays * DAY_MS) / 10));
}

export interface RetentionLoop {
  name: string;
  stop(): Promise<void>;
}

export function startRetentionLoop(
  ctx: PruneCtx,
  options: Omit<PruneOptions, "signal"> & { firstDelayMs?: number; intervalMs?: number } = {},
): RetentionLoop {
  const abort = new AbortController();
  const periodMs = passIntervalMs(ctx.config.deliveryRetentionDays);
  const intervalMs = options.intervalMs ?? periodMs;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    try {
      const counts = await pruneExpired(ctx, { ...options, signal: abort.signal });
      const freed = options.freePages ? `, ${counts.freedPages} pages given back to the file system` : "";
      ctx.logger.info(
        { ...counts, retentionDays: ctx.config.deliveryRetentionDays },
        `retention pass: pruned ${counts.deliveries} deliveries, ${counts.attempts} attempts, ${counts.logEvents} $logs events and ${counts.runs} workflow runs older than ${ctx.config.deliveryRetentionDays} days, and ${counts.expiredRecords} expired data store records, in ${counts.batches} batches${freed} (${counts.ms} ms)`,
      );
    } catch (error) {
      if (!abort.signal.aborted) ctx.logger.error({ err: error }, "retention pass failed; the next one tries again");
    }
    schedule(intervalMs);
  };
  const schedule = (ms: number) => {
    if (abort.signal.aborted) return;
    timer = setTimeout(() => (running = pass()), ms);
    timer.unref();
  };
  schedule(options.firstDelayMs ?? Math.min(FIRST_PASS_DELAY_MS, periodMs));
  return {
    name: "retention",
    async stop() {
      abort.abort();
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
