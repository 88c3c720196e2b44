// Free-plan daily quotas (docs/architecture.md, "Quotas"): over either the invocation or the compute-time
// quota of the current UTC day, HTTP endpoints answer 429 and scheduled runs are skipped.
import type { Ctx } from "../context.js";
import { ServiceError } from "../../lib/errors.js";
import { utcDay } from "../users/billing-period.js";

const PLAN_TTL_MS = 60_000;

async function planOf(ctx: Ctx, userId: string): Promise<string | undefined> {
  const { plans } = ctx.quotaMemo;
  const cached = plans.get(userId);
  if (cached && performance.now() - cached.at < PLAN_TTL_MS) return cached.plan;
  const row = await ctx.db.selectFrom("users").select("plan").where("id", "=", userId).executeTakeFirst();
  if (row) plans.set(userId, { plan: row.plan, at: performance.now() });
  return row?.plan;
}

/** Seconds until the next UTC midnight, when the daily quotas reset. */
export function secondsUntilQuotaReset(nowMs: number): number {
  const next = new Date(nowMs);
  next.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((next.getTime() - nowMs) / 1000));
}

// The hot ingest path skips the usage read for a second when the account was far below both
// quotas at its last read; near a quota every request reads the exact figures.
const FAR_BELOW = 0.9;
const USAGE_TTL_MS = 1000;

/** A message saying which quota is exhausted, or undefined when the account may run. */
export async function quotaExceeded(ctx: Ctx, userId: string): Promise<string | undefined> {
  const now = ctx.clock.now();
  const day = utcDay(now);
  const { farBelow } = ctx.quotaMemo;
  const known = farBelow.get(userId);
  // Far below (which implies the free plan was read recently): nothing to wait for.
  if (known && known.day === day && performance.now() - known.at < USAGE_TTL_MS) return undefined;
  if ((await planOf(ctx, userId)) !== "free") return undefined;
  const usage = await ctx.db
    .selectFrom("usage_daily")
    .select(["invocations", "compute_ms"])
    .where("user_id", "=", userId)
    .where("day", "=", day)
    .executeTakeFirst();
  const invocations = Number(usage?.invocations ?? 0);
  const computeMs = Number(usage?.compute_ms ?? 0);
  if (invocations < FAR_BELOW * ctx.config.freeDailyInvocations - 100 && computeMs < FAR_BELOW * ctx.config.freeDailyComputeMs - 60_000)
    farBelow.set(userId, { day, at: performance.now() });
  else farBelow.delete(userId);
  if (!usage) return undefined;
  if (Number(usage.invocations) >= ctx.config.freeDailyInvocations)
    return `daily invocation quota of ${ctx.config.freeDailyInvocations} exceeded`;
  if (Number(usage.compute_ms) >= ctx.config.freeDailyComputeMs)
    return `daily compute time quota of ${ctx.config.freeDailyComputeMs} ms exceeded`;
  return undefined;
}

export async function assertWithinQuota(ctx: Ctx, userId: string): Promise<void> {
  const exceeded = await quotaExceeded(ctx, userId);
  if (exceeded) throw new ServiceError("LIMIT_EXCEEDED", exceeded, { retryAfterSeconds: secondsUntilQuotaReset(ctx.clock.now()) });
}
