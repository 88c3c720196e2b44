// Dead jobs for the operator (admin API and `sluice jobs`): listed newest first with why they
// died, and sent back to the queue one at a time. A dead webhook delivery's record stays
// `pending` (its listener never refused it; the service could not carry it out), so a retry of
// its job carries the delivery on from its next attempt.
import type { Ctx } from "../context.js";
import { notFound, ServiceError } from "../../lib/errors.js";
import { listDeadJobRows, reviveJob } from "../../queue/dead-jobs.js";
import type { Page, PageRequest } from "../../store/paginate.js";
import type { DeadJobsTable } from "../../store/schema.js";

export interface DeadJobView {
  id: string;
  type: string;
  state: "dead";
  user_id: string | null;
  payload: unknown;
  attempts: number;
  last_error: string | null;
  created_at: number;
  died_at: number;
}

export function deadJobView(row: DeadJobsTable): DeadJobView {
  return {
    id: row.id,
    type: row.type,
    state: "dead",
    user_id: row.user_id,
    payload: JSON.parse(row.payload),
    attempts: Number(row.attempts),
    last_error: row.last_error,
    created_at: Number(row.created_at),
    died_at: Number(row.died_at),
  };
}

export async function listDeadJobs({ ctx, page }: { ctx: Ctx; page: PageRequest }): Promise<Page<DeadJobView>> {
  const rows = await listDeadJobRows(ctx.db, page);
  return { page_info: rows.page_info, data: rows.data.map(deadJobView) };
}

/** Makes a dead job runnable again, its attempts reset: 404 for no such job, 409 for one that is not dead. */
export async function retryDeadJob({ ctx, id }: { ctx: Ctx; id: string }): Promise<void> {
  const outcome = await reviveJob(ctx.db, id, ctx.clock.now());
  if (outcome === "unknown") throw notFound();
  if (outcome === "queued") throw new ServiceError("CONFLICT", `job ${id} is not dead: it is still in the queue`);
  ctx.logger.info({ jobId: id }, "dead job sent back to the queue");
}
