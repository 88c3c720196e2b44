// An execution that ran is counted, whatever becomes of its results. Its usage is normally
// written in the transaction that stores them (one commit: a crash can neither count it
// without its results nor store them uncounted); should storing fail, the usage is written on
// its own before the failure goes on. Otherwise code whose results cannot be stored runs
// again and again for free, and the daily quota never stops it.
import type { Ctx } from "../context.js";
import { recordUsage } from "./record-usage.js";

export async function chargedEvenIfStoringFails<T>(
  ctx: Ctx,
  execution: { userId: string; computeMs: number },
  store: () => Promise<T>,
): Promise<T> {
  try {
    return await store();
  } catch (error) {
    try {
      await recordUsage(ctx.db, execution.userId, ctx.clock.now(), execution.computeMs);
    } catch (usageError) {
      ctx.logger.error({ err: usageError, userId: execution.userId }, "could not count an execution whose results were not stored");
    }
    throw error;
  }
}
