// The account's storage quota at the HTTP endpoints of its sources and workflows: once its
// stored events reach SLUICE_ACCOUNT_STORAGE_MB, new events are refused with a 429 before
// any work is done (emits of other runs become $errors entries, events/event-limits.ts).
import type { Ctx } from "../context.js";
import { ServiceError } from "../../lib/errors.js";

export async function assertStorageAvailable(ctx: Ctx, userId: string): Promise<void> {
  const quota = ctx.eventLimits.quotaBytes;
  if ((await ctx.eventLimits.storageUsed(userId)) < quota) return;
  throw new ServiceError(
    "LIMIT_EXCEEDED",
    `the account's storage quota of ${quota} bytes (SLUICE_ACCOUNT_STORAGE_MB) is used up; delete events to store new ones`,
    { retryAfterSeconds: 60 },
  );
}
