// CPU an account's runner used while no execution was in it (timers or loops its code left
// behind) is compute time of the account like an execution's, without being an invocation.
import type { Ctx } from "../context.js";
import { recordUsage } from "./record-usage.js";

export async function recordIdleCompute({ ctx, input }: { ctx: Ctx; input: { userId: string; computeMs: number } }): Promise<void> {
  try {
    await recordUsage(ctx.db, input.userId, ctx.clock.now(), input.computeMs, 0);
  } catch (error) {
    ctx.logger.warn({ err: error, userId: input.userId }, "could not count a runner's idle compute time");
  }
}
