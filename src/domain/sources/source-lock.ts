// Executions of one source run one at a time, so none loses another's $.service.db writes:
// a promise chain per source inside this process, and a lease on the source row (taken by
// compare-and-set) across processes sharing one database. The lease expires on its own if
// its holder dies. The chains are the context's (Ctx.sourceLocks).
import type { Ctx } from "../context.js";

export interface LockedState {
  state: Record<string, unknown>;
  dedupe: Record<string, unknown>;
}

/** Runs `fn` holding the source's lock; undefined when the source no longer exists. */
export async function withSourceLock<T>(
  ctx: Ctx,
  sourceId: string,
  leaseMs: number,
  fn: (locked: LockedState) => Promise<T>,
): Promise<T | undefined> {
  const chains = ctx.sourceLocks;
  const previous = chains.get(sourceId) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => holdLease(ctx, sourceId, leaseMs, fn));
  chains.set(sourceId, run);
  try {
    return await run;
  } finally {
    if (chains.get(sourceId) === run) chains.delete(sourceId);
  }
}

async function holdLease<T>(ctx: Ctx, sourceId: string, leaseMs: number, fn: (locked: LockedState) => Promise<T>): Promise<T | undefined> {
  let wait = 5;
  // How long to wait is real elapsed time, not the injected clock, which stamps data (and may stand still in tests).
  const giveUpAt = performance.now() + leaseMs * 2;
  for (;;) {
    const now = ctx.clock.now();
    const row = await ctx.db
      .updateTable("sources")
      .set({ run_lock_until: now + leaseMs })
      .where("id", "=", sourceId)
      .where((eb) => eb.or([eb("run_lock_until", "is", null), eb("run_lock_until", "<", now)]))
      .returning(["state", "dedupe_state"])
      .executeTakeFirst();
    if (row) {
      try {
        return await fn({ state: JSON.parse(row.state), dedupe: JSON.parse(row.dedupe_state) });
      } finally {
        await releaseLease(ctx, sourceId);
      }
    }
    const exists = await ctx.db.selectFrom("sources").select("id").where("id", "=", sourceId).executeTakeFirst();
    if (!exists) return undefined;
    if (performance.now() > giveUpAt) throw new Error(`source ${sourceId} stayed locked by another process`);
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 250);
  }
}

async function releaseLease(ctx: Ctx, sourceId: string): Promise<void> {
  await ctx.db.updateTable("sources").set({ run_lock_until: null }).where("id", "=", sourceId).execute();
}
