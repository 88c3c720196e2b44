// A public request (/e/, /w/, /a/) accepted for runs later. Its account's quotas are checked
// first (429); its jobs are then written, sharing a commit with the requests that arrive
// meanwhile (group commit), and only then is it answered 200 {"status": "accepted"}: what was
// answered is stored.
import type { Ctx } from "../context.js";
import type { JobQueue, NewJob } from "../../queue/job-queue.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import { inGroupTransaction } from "../../store/group-commit.js";
import { assertWithinQuota } from "../usage/quota.js";
import { assertStorageAvailable } from "../usage/storage-quota.js";
import { ACCEPTED_RESPONSE } from "./accepted-response.js";

/** The account may run and store more (its invocation quota, its storage quota): else 429. */
export async function assertAccountMayStore(ctx: Ctx, userId: string): Promise<void> {
  await assertWithinQuota(ctx, userId);
  await assertStorageAvailable(ctx, userId);
}

export async function acceptForLater(deps: { ctx: Ctx; queue: JobQueue }, jobs: NewJob[]): Promise<HttpResponseRecord> {
  await inGroupTransaction(deps.ctx.db, (tx) => deps.queue.enqueue(tx, jobs));
  return ACCEPTED_RESPONSE;
}
