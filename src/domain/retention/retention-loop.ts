// The worker role's background pruning: a retention pass soon after start, then one per
// interval, each logged with what it removed. Several workers sharing a PostgreSQL database
// each run it; their deletes of the same rows are harmless (a row is deleted once).
import { pruneExpired, type PruneCtx, type PruneOptions } from "./prune-expired.js";

export const FIRST_PASS_DELAY_MS = 60_000;
export const PASS_INTERVAL_MS = 60 * 60_000;

export interface RetentionLoop {
  name: string;
  stop(): Promise<void>;
}

export function startRetentionLoop(
  ctx: PruneCtx,
  options: Omit<PruneOptions, "signal"> & { firstDelayMs?: number; intervalMs?: number } = {},
): RetentionLoop {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    try {
      const counts = await pruneExpired(ctx, { ...options, signal: abort.signal });
      const freed = options.freePages ? `, ${counts.freedPages} pages given back to the file system` : "";
      ctx.logger.info(
        { ...counts, retentionDays: ctx.config.deliveryRetentionDays },
        `retention pass: pruned ${counts.deliveries} deliveries, ${counts.attempts} attempts and ${counts.logEvents} $logs events older than ${ctx.config.deliveryRetentionDays} days in ${counts.batches} batches${freed} (${counts.ms} ms)`,
      );
    } catch (error) {
      if (!abort.signal.aborted) ctx.logger.error({ err: error }, "retention pass failed; the next one tries again");
    }
    schedule(options.intervalMs ?? PASS_INTERVAL_MS);
  };
  const schedule = (ms: number) => {
    if (abort.signal.aborted) return;
    timer = setTimeout(() => (running = pass()), ms);
    timer.unref();
  };
  schedule(options.firstDelayMs ?? FIRST_PASS_DELAY_MS);
  return {
    name: "retention",
    async stop() {
      abort.abort();
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
