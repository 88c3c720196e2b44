import type { Actor, Ctx } from "../context.js";
import { notFound } from "../../lib/errors.js";
import { toUnixSeconds } from "../../lib/clock.js";
import { maskApiKey } from "./api-keys.js";
import { billingPeriod, utcDay } from "./billing-period.js";

export type FreeUserView = {
  id: string;
  username: string;
  email: string;
  api_key: string;
  daily_compute_time_quota: number;
  daily_compute_time_used: number;
  daily_invocations_quota: number;
  daily_invocations_used: number;
} & StorageView;

export type PaidUserView = {
  id: string;
  username: string;
  email: string;
  billing_period_start_ts: number;
  billing_period_end_ts: number;
  billing_period_invocations: number;
} & StorageView;

/** Bytes of stored events, both plans (to within a few seconds). */
type StorageView = { storage_used_bytes: number; storage_quota_bytes: number };

/** `GET /users/me`: exactly the spec's fields for the account's plan. Compute time is in ms. */
export async function getMe({ ctx, actor }: { ctx: Ctx; actor: Actor }): Promise<FreeUserView | PaidUserView> {
  const user = await ctx.db.selectFrom("users").selectAll().where("id", "=", actor.userId).executeTakeFirst();
  if (!user) throw notFound();
  const now = ctx.clock.now();
  const storage = { storage_used_bytes: await ctx.eventLimits.storageUsed(user.id), storage_quota_bytes: ctx.eventLimits.quotaBytes };
  if (user.plan === "paid") {
    const { startMs, endMs } = billingPeriod(user.created_at, now);
    const row = await ctx.db
      .selectFrom("usage_daily")
      .select((eb) => eb.fn.sum<number>("invocations").as("n"))
      .where("user_id", "=", user.id)
      .where("day", ">=", utcDay(startMs))
      .where("day", "<", utcDay(endMs))
      .executeTakeFirst();
    return {
      id: user.id,
      username: user.username,
      email: user.email,
      billing_period_start_ts: toUnixSeconds(startMs),
      billing_period_end_ts: toUnixSeconds(endMs),
      billing_period_invocations: Number(row?.n ?? 0),
      ...storage,
    };
  }
  const key = await ctx.db
    .selectFrom("api_keys")
    .select("key_hint")
    .where("user_id", "=", user.id)
    .orderBy("created_at", "asc")
    .executeTakeFirst();
  const usage = await ctx.db
    .selectFrom("usage_daily")
    .select(["invocations", "compute_ms"])
    .where("user_id", "=", user.id)
    .where("day", "=", utcDay(now))
    .executeTakeFirst();
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    api_key: maskApiKey(key?.key_hint ?? "****"),
    daily_compute_time_quota: ctx.config.freeDailyComputeMs,
    daily_compute_time_used: Number(usage?.compute_ms ?? 0),
    daily_invocations_quota: ctx.config.freeDailyInvocations,
    daily_invocations_used: Number(usage?.invocations ?? 0),
    ...storage,
  };
}
